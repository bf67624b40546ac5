// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ZmqSinkOptionsTest {

    @Test
    void endpointModesFollowNtopng() {
        ZmqSinkOptions bind = ZmqSinkOptions.defaults("tcp://*:5556");
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
                                "flowhouse.zmq.source-id", "7",
                                "flowhouse.zmq.overflow", "block",
                                "flowhouse.zmq.event-interval", "2s",
                                "flowhouse.zmq.timeout.idle", "60"));
        assertThat(o.sourceId()).isEqualTo(7);
        assertThat(o.overflow()).isEqualTo(ZmqSinkOptions.Overflow.BLOCK);
        assertThat(o.eventInterval()).isEqualTo(java.time.Duration.ofSeconds(2));
        assertThat(o.idleTimeoutSeconds()).isEqualTo(60);
        assertThat(o.curveEnabled()).isFalse();
    }

    /** The options of these {@code --KEY VALUE} flags, as the job's command line gives them. */
    private static ZmqSinkOptions fromKeys(java.util.Map<String, String> flags) {
        io.flowhouse.config.ConfigResolver r =
                io.flowhouse.config.ConfigResolver.of(ZmqSinkKeys.SCHEMA);
        flags.forEach((k, v) -> r.flag(k, v, "--" + k));
        return ZmqSinkKeys.options(r.resolve());
    }
}
