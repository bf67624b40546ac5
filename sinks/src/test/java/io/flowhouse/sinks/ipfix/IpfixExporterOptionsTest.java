// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class IpfixExporterOptionsTest {

    @Test
    void targetsParseHostPortAndTransport() {
        assertThat(IpfixExporterOptions.Target.parse("collector:4739"))
                .isEqualTo(
                        new IpfixExporterOptions.Target(
                                "collector", 4739, IpfixExporterOptions.Transport.UDP));
        assertThat(IpfixExporterOptions.Target.parse("10.0.0.1:4739/tcp").transport())
                .isEqualTo(IpfixExporterOptions.Transport.TCP);
        IpfixExporterOptions.Target v6 = IpfixExporterOptions.Target.parse("[2001:db8::1]:2055");
        assertThat(v6.host()).isEqualTo("2001:db8::1");
        assertThat(v6.toString()).isEqualTo("[2001:db8::1]:2055");
    }

    @Test
    void badValuesNameTheKey() {
        assertThatThrownBy(() -> IpfixExporterOptions.Target.parse("host:99999"))
                .hasMessageContaining("expected: 1..65535");
        assertThatThrownBy(() -> IpfixExporterOptions.Target.parse("host:4739/sctp"))
                .hasMessageContaining("HOST:PORT[/tcp|/udp]");
        assertThatThrownBy(
                        () ->
                                IpfixExporterOptions.builder()
                                        .target("h:1")
                                        .maxMessageBytes(511)
                                        .build())
                .hasMessageContaining("flowhouse.ipfix.max-message-bytes");
        assertThatThrownBy(() -> IpfixExporterOptions.builder().build())
                .hasMessageContaining("flowhouse.ipfix.targets");
    }

    @Test
    void udpMessagesStopAtTheLargestUdpPayload() {
        assertThat(
                        IpfixExporterOptions.builder()
                                .target("h:1")
                                .maxMessageBytes(65_507)
                                .build()
                                .maxMessageBytes())
                .isEqualTo(65_507);
        assertThatThrownBy(
                        () ->
                                IpfixExporterOptions.builder()
                                        .target("h:1")
                                        .maxMessageBytes(65_508)
                                        .build())
                .hasMessageContaining("at most 65507 with a UDP target");
        assertThat(
                        IpfixExporterOptions.builder()
                                .target("h:1/tcp")
                                .maxMessageBytes(65_535)
                                .build()
                                .maxMessageBytes())
                .isEqualTo(65_535);
    }

    @Test
    void defaultsFollowTheRfc() {
        IpfixExporterOptions o = IpfixExporterOptions.forTargets("h:4739");
        assertThat(o.maxMessageBytes()).isEqualTo(1400);
        assertThat(o.biflowMode()).isEqualTo(IpfixExporterOptions.BiflowMode.SPLIT);
        assertThat(o.observationDomainId()).isEqualTo(-1);
        assertThat(o.templateRefreshMessages()).isPositive();
        assertThat(o.writeTimeout()).isEqualTo(java.time.Duration.ofSeconds(5));
        assertThat(o.queueCapacity()).isEqualTo(16_384);
        assertThat(o.maxDomains()).isEqualTo(1_024);
    }

    @Test
    void boundsAreConfigurableAndChecked() {
        IpfixExporterOptions o =
                fromKeys(
                        java.util.Map.of(
                                "flowhouse.ipfix.targets", "h:1/tcp",
                                "flowhouse.ipfix.tcp.write-timeout", "750ms",
                                "flowhouse.ipfix.queue-capacity", "1000",
                                "flowhouse.ipfix.max-domains", "8"));
        assertThat(o.writeTimeout()).isEqualTo(java.time.Duration.ofMillis(750));
        assertThat(o.queueCapacity()).isEqualTo(1000);
        assertThat(o.maxDomains()).isEqualTo(8);
        assertThatThrownBy(() -> o.toBuilder().queueCapacity(0).build())
                .hasMessageContaining("flowhouse.ipfix.queue-capacity");
        assertThatThrownBy(() -> o.toBuilder().maxDomains(0).build())
                .hasMessageContaining("flowhouse.ipfix.max-domains");
        assertThatThrownBy(() -> o.toBuilder().writeTimeout(java.time.Duration.ZERO).build())
                .hasMessageContaining("flowhouse.ipfix.tcp.write-timeout");
    }

    @Test
    void fromKeysIsOffWithoutTargetsAndReadsEveryKey() {
        assertThat(fromKeys(java.util.Map.of())).isNull();
        IpfixExporterOptions o =
                fromKeys(
                        java.util.Map.of(
                                "flowhouse.ipfix.targets", "127.0.0.1:4739, [::1]:4739/tcp",
                                "flowhouse.ipfix.max-message-bytes", "512",
                                "flowhouse.ipfix.template-refresh-interval", "10m",
                                "flowhouse.ipfix.linger", "250ms",
                                "flowhouse.ipfix.biflow", "rfc5103",
                                "flowhouse.ipfix.observation-domain-id", "42"));
        assertThat(o.targets()).hasSize(2);
        assertThat(o.targets().get(1).transport()).isEqualTo(IpfixExporterOptions.Transport.TCP);
        assertThat(o.maxMessageBytes()).isEqualTo(512);
        assertThat(o.templateRefreshInterval()).isEqualTo(java.time.Duration.ofMinutes(10));
        assertThat(o.linger()).isEqualTo(java.time.Duration.ofMillis(250));
        assertThat(o.biflowMode()).isEqualTo(IpfixExporterOptions.BiflowMode.RFC5103);
        assertThat(o.observationDomainId()).isEqualTo(42);
        assertThatThrownBy(
                        () ->
                                fromKeys(
                                        java.util.Map.of(
                                                "flowhouse.ipfix.targets", "h:1",
                                                "flowhouse.ipfix.linger", "soon")))
                .hasMessageContaining("flowhouse.ipfix.linger");
    }

    @Test
    void interfaceNameBoundsAreKeys() {
        IpfixExporterOptions defaults =
                fromKeys(java.util.Map.of("flowhouse.ipfix.targets", "h:1"));
        assertThat(defaults.maxInterfaces()).isEqualTo(4_096);
        assertThat(defaults.interfaceNameMaxBytes()).isEqualTo(128);
        IpfixExporterOptions o =
                fromKeys(
                        java.util.Map.of(
                                "flowhouse.ipfix.targets", "h:1",
                                "flowhouse.ipfix.max-interfaces", "16",
                                "flowhouse.ipfix.interface-name-max-bytes", "0"));
        assertThat(o.maxInterfaces()).isEqualTo(16);
        assertThat(o.interfaceNameMaxBytes()).isZero();
        assertThatThrownBy(
                        () ->
                                fromKeys(
                                        java.util.Map.of(
                                                "flowhouse.ipfix.targets", "h:1",
                                                "flowhouse.ipfix.interface-name-max-bytes", "255")))
                .hasMessageContaining("flowhouse.ipfix.interface-name-max-bytes");
        assertThatThrownBy(() -> o.toBuilder().maxInterfaces(0).build())
                .hasMessageContaining("flowhouse.ipfix.max-interfaces");
    }

    /** The options of these {@code --KEY VALUE} flags, as the job's command line gives them. */
    private static IpfixExporterOptions fromKeys(java.util.Map<String, String> flags) {
        io.flowhouse.config.ConfigResolver r =
                io.flowhouse.config.ConfigResolver.of(IpfixExporterKeys.SCHEMA);
        flags.forEach((k, v) -> r.flag(k, v, "--" + k));
        return IpfixExporterKeys.options(r.resolve());
    }
}
