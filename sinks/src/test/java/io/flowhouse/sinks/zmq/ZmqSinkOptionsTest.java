// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ZmqSinkOptionsTest {

    @Test
    void endpointModesFollowNtopng() {
        ZmqSinkOptions bind =
                ZmqSinkOptions.builder("tcp://*:5556").allowUnauthenticated(true).build();
        assertThat(bind.connectMode()).isFalse();
        assertThat(bind.zmqAddress()).isEqualTo("tcp://*:5556");
        ZmqSinkOptions collector = ZmqSinkOptions.defaults("zmq://ntopng.example:5556c");
        assertThat(collector.connectMode()).isTrue();
        assertThat(collector.zmqAddress()).isEqualTo("tcp://ntopng.example:5556");
        assertThat(ZmqSinkOptions.defaults("ipc:///tmp/flowc").connectMode()).isFalse();
    }

    @Test
    void limitsAreChecked() {
        assertThatThrownBy(
                        () ->
                                ZmqSinkOptions.builder("tcp://*:5556")
                                        .maxMessageBytes(200_000)
                                        .build())
                .hasMessageContaining("flowhouse.zmq.max-message-bytes");
        assertThatThrownBy(() -> ZmqSinkOptions.defaults("http://x"))
                .hasMessageContaining("tcp://HOST:PORT[c]");
        assertThat(ZmqSinkOptions.Overflow.parse(" Block "))
                .isEqualTo(ZmqSinkOptions.Overflow.BLOCK);
    }

    @Test
    void fromKeysIsOffWithoutEndpointAndReadsEveryKey() {
        assertThat(fromKeys(java.util.Map.of())).isNull();
        ZmqSinkOptions o =
                fromKeys(
                        java.util.Map.of(
                                "flowhouse.zmq.endpoint", "tcp://*:5556",
                                "flowhouse.zmq.allow-unauthenticated", "true",
                                "flowhouse.zmq.slow-subscriber", "wait",
                                "flowhouse.zmq.source-id", "7",
                                "flowhouse.zmq.overflow", "block",
                                "flowhouse.zmq.event-interval", "2s",
                                "flowhouse.zmq.timeout.idle", "60"));
        assertThat(o.sourceId()).isEqualTo(7);
        assertThat(o.overflow()).isEqualTo(ZmqSinkOptions.Overflow.BLOCK);
        assertThat(o.eventInterval()).isEqualTo(java.time.Duration.ofSeconds(2));
        assertThat(o.idleTimeoutSeconds()).isEqualTo(60);
        assertThat(o.curveEnabled()).isFalse();
        assertThat(o.slowSubscriber()).isEqualTo(ZmqSinkOptions.SlowSubscriber.WAIT);
        assertThat(o.allowUnauthenticated()).isTrue();
    }

    @Test
    void interfaceNamesAreRepeatedAndBoundedByKeys() {
        ZmqSinkOptions d = ZmqSinkOptions.defaults("tcp://127.0.0.1:5556");
        assertThat(d.interfacesInterval()).isEqualTo(java.time.Duration.ofSeconds(60));
        assertThat(d.interfacesMaxPerExporter()).isEqualTo(4096);
        assertThat(d.interfacesMaxExporters()).isEqualTo(1024);
        ZmqSinkOptions o =
                fromKeys(
                        java.util.Map.of(
                                "flowhouse.zmq.endpoint", "tcp://127.0.0.1:5556",
                                "flowhouse.zmq.interfaces.interval", "5m",
                                "flowhouse.zmq.interfaces.max-per-exporter", "10",
                                "flowhouse.zmq.interfaces.max-exporters", "3"));
        assertThat(o.interfacesInterval()).isEqualTo(java.time.Duration.ofMinutes(5));
        assertThat(o.interfacesMaxPerExporter()).isEqualTo(10);
        assertThat(o.interfacesMaxExporters()).isEqualTo(3);
        assertThat(o.toBuilder().build().interfacesMaxExporters()).isEqualTo(3);
        assertThatThrownBy(
                        () ->
                                ZmqSinkOptions.builder("tcp://127.0.0.1:5556")
                                        .interfacesInterval(java.time.Duration.ZERO)
                                        .build())
                .hasMessageContaining("interfaces.interval");
        assertThatThrownBy(
                        () ->
                                fromKeys(
                                        java.util.Map.of(
                                                "flowhouse.zmq.endpoint",
                                                "tcp://127.0.0.1:5556",
                                                "flowhouse.zmq.interfaces.max-per-exporter",
                                                "0")))
                .hasMessageContaining("max-per-exporter");
    }

    @Test
    void slowSubscribersDropTheirOwnMessagesByDefaultWithABoundedHwm() {
        ZmqSinkOptions o = ZmqSinkOptions.defaults("tcp://127.0.0.1:5556");
        assertThat(o.slowSubscriber()).isEqualTo(ZmqSinkOptions.SlowSubscriber.DROP);
        assertThat(o.sendHwm()).isEqualTo(1_000);
        assertThat(ZmqSinkOptions.SlowSubscriber.parse(" WAIT "))
                .isEqualTo(ZmqSinkOptions.SlowSubscriber.WAIT);
    }

    @Test
    void bindingBeyondLoopbackNeedsCurveOrAnExplicitYes() {
        for (String loopback :
                java.util.List.of(
                        "tcp://127.0.0.1:5556",
                        "tcp://127.0.0.2:0",
                        "tcp://localhost:5556",
                        "tcp://[::1]:5556",
                        "ipc:///tmp/flowhouse.zmq",
                        "tcp://ntopng.example:5556c")) {
            assertThat(ZmqSinkOptions.defaults(loopback).bindsBeyondLoopback())
                    .as(loopback)
                    .isFalse();
        }
        for (String wide :
                java.util.List.of(
                        "tcp://*:5556",
                        "tcp://0.0.0.0:5556",
                        "tcp://eth0:5556",
                        "tcp://[::]:5556")) {
            assertThatThrownBy(() -> ZmqSinkOptions.defaults(wide))
                    .as(wide)
                    .hasMessageContaining("beyond loopback")
                    .hasMessageContaining("flowhouse.zmq.allow-unauthenticated");
            assertThat(
                            ZmqSinkOptions.builder(wide)
                                    .allowUnauthenticated(true)
                                    .build()
                                    .bindsBeyondLoopback())
                    .isTrue();
        }
        assertThatThrownBy(
                        () ->
                                fromKeys(
                                        java.util.Map.of(
                                                "flowhouse.zmq.endpoint", "tcp://*:5556",
                                                "flowhouse.zmq.allow-unauthenticated", "yes")))
                .hasMessageContaining("flowhouse.zmq.allow-unauthenticated yes")
                .hasMessageContaining("expected: true or false");
    }

    @Test
    void curveServerModeNeedsAClientAllowList() {
        java.nio.file.Path pub = java.nio.file.Path.of("pub");
        java.nio.file.Path sec = java.nio.file.Path.of("sec");
        assertThatThrownBy(
                        () ->
                                ZmqSinkOptions.builder("tcp://*:5556")
                                        .curvePublicKeyFile(pub)
                                        .curveSecretKeyFile(sec)
                                        .build())
                .hasMessageContaining("flowhouse.zmq.curve.allowed-clients-file");
        ZmqSinkOptions server =
                ZmqSinkOptions.builder("tcp://*:5556")
                        .curvePublicKeyFile(pub)
                        .curveSecretKeyFile(sec)
                        .curveAllowedClientsFile(java.nio.file.Path.of("allowed"))
                        .build();
        assertThat(server.curveServer()).isTrue();
        assertThat(server.bindsBeyondLoopback()).isTrue();
        // As a CURVE client (nProbe's role) only the holder of the server key can read.
        ZmqSinkOptions client =
                ZmqSinkOptions.builder("tcp://*:5556")
                        .curveServerPublicKeyFile(java.nio.file.Path.of("ntopng.pub"))
                        .build();
        assertThat(client.curveServer()).isFalse();
        assertThatThrownBy(
                        () ->
                                client.toBuilder()
                                        .curveAllowedClientsFile(java.nio.file.Path.of("allowed"))
                                        .build())
                .hasMessageContaining("needs curve server mode");
    }

    /** The options of these {@code --KEY VALUE} flags, as the job's command line gives them. */
    private static ZmqSinkOptions fromKeys(java.util.Map<String, String> flags) {
        io.flowhouse.config.ConfigResolver r =
                io.flowhouse.config.ConfigResolver.of(ZmqSinkKeys.SCHEMA);
        flags.forEach((k, v) -> r.flag(k, v, "--" + k));
        return ZmqSinkKeys.options(r.resolve());
    }
}
