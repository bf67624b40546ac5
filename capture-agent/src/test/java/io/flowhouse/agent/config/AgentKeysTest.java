// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.config.cli.Cli;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class AgentKeysTest {

    @Test
    void defaultsListenOnTheNetflowIpfixAndSflowPortsAndSendToLocalKafka() {
        AgentConfig c = AgentCommand.configFrom();
        assertThat(c.udp().enabled()).isTrue();
        assertThat(c.udp().listeners())
                .containsExactly(
                        new AgentConfig.Listener("::", 2055),
                        new AgentConfig.Listener("::", 4739),
                        new AgentConfig.Listener("::", 6343));
        assertThat(c.udp().maxDatagramBytes()).isEqualTo(65_535);
        assertThat(c.kafka().bootstrapServers()).isEqualTo("127.0.0.1:9092");
        assertThat(c.kafka().compression()).isEqualTo("lz4");
        assertThat(c.packets().enabled()).isFalse();
    }

    @Test
    void theDocumentedDefaultFileEqualsTheBuiltInDefaults() throws IOException {
        String yaml;
        try (InputStream in = getClass().getResourceAsStream("/flowhouse-agent.yaml")) {
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        AgentConfig defaults = AgentKeys.defaults();
        AgentConfig fromFile =
                AgentKeys.fromYaml(
                        yaml.replace("${HOSTNAME}", defaults.agentId())
                                .replace(
                                        "sockets-per-listener: 2",
                                        "sockets-per-listener: "
                                                + defaults.udp().socketsPerListener()));
        assertThat(fromFile).isEqualTo(defaults);
    }

    @Test
    void yamlThenFlags() throws IOException {
        AgentConfig base =
                AgentKeys.fromYaml(
                        String.join(
                                "\n",
                                "udp:",
                                "  listen: ['10.0.0.1:9995', '[2001:db8::1]:4739']",
                                "  allowed-exporters: ['10.0.0.0/8']",
                                "kafka:",
                                "  bootstrap-servers: broker:9092",
                                "  properties:",
                                "    client.rack: r1",
                                "packets:",
                                "  speed: 2x"));
        assertThat(base.udp().listeners())
                .containsExactly(
                        new AgentConfig.Listener("10.0.0.1", 9995),
                        new AgentConfig.Listener("2001:db8::1", 4739));
        assertThat(base.udp().allowedExporters()).containsExactly("10.0.0.0/8");
        assertThat(base.kafka().properties()).containsEntry("client.rack", "r1");
        assertThat(base.packets().speed()).isEqualTo(2.0);
    }

    @Test
    void packetFlagsRunThePacketPathAlone() throws IOException {
        AgentConfig c =
                AgentCommand.configFrom(
                        new String[] {
                            "--pcap", "x.pcap", "--speed", "1x", "--spool-dir", "/tmp/s"
                        });
        assertThat(c.udp().enabled()).isFalse();
        assertThat(c.packets().file()).isEqualTo(Path.of("x.pcap"));
        assertThat(c.packets().speed()).isEqualTo(1.0);
        assertThat(c.spool().directory()).isEqualTo(Path.of("/tmp/s"));
        AgentConfig both =
                AgentCommand.configFrom(
                        new String[] {"--interface", "eth0", "--filter", "tcp", "--with-udp"});
        assertThat(both.udp().enabled()).isTrue();
        assertThat(both.packets().interfaceName()).isEqualTo("eth0");
        assertThat(both.packets().filter()).isEqualTo("tcp");
    }

    @Test
    void badInputIsReportedWithTheKey() {
        assertThatThrownBy(() -> AgentKeys.fromYaml("udp:\n  listn: []\n"))
                .hasMessageContaining("unknown key udp.listn");
        assertThatThrownBy(() -> AgentKeys.fromYaml("udp:\n  max-datagram-bytes: 70000\n"))
                .hasMessageContaining("udp.max-datagram-bytes");
        assertThatThrownBy(() -> AgentCommand.configFrom(new String[] {"--nope", "1"}))
                .hasMessageContaining("unknown option --nope");
        assertThatThrownBy(() -> AgentCommand.configFrom(new String[] {"--allow", "10.0.0.0/40"}))
                .hasMessageContaining("prefix length 40");
        assertThatThrownBy(() -> AgentKeys.parseSpeed("fast"))
                .hasMessageContaining("expected: max, 1x, Nx");
        assertThatThrownBy(() -> AgentCommand.configFrom(new String[] {"--help"}))
                .isInstanceOf(Cli.HelpRequestedException.class);
    }

    @Test
    void cidrSetMatchesIpv4MappedAndIpv6() {
        CidrSet set = CidrSet.of(List.of("192.0.2.0/24", "2001:db8::/32", "198.51.100.7"));
        assertThat(set.admits(IpAddress.parse("192.0.2.200"))).isTrue();
        assertThat(set.admits(IpAddress.parse("::ffff:192.0.2.1"))).isTrue();
        assertThat(set.admits(IpAddress.parse("192.0.3.1"))).isFalse();
        assertThat(set.admits(IpAddress.parse("2001:db8:ffff::1"))).isTrue();
        assertThat(set.admits(IpAddress.parse("2001:db9::1"))).isFalse();
        assertThat(set.admits(IpAddress.parse("198.51.100.7"))).isTrue();
        assertThat(set.admits(IpAddress.parse("198.51.100.8"))).isFalse();
        assertThat(CidrSet.of(List.of()).admits(IpAddress.parse("203.0.113.1"))).isTrue();
        assertThat(CidrSet.of(List.of("0.0.0.0/0")).admits(IpAddress.parse("203.0.113.1")))
                .isTrue();
        assertThat(CidrSet.of(List.of("0.0.0.0/0")).admits(IpAddress.parse("2001:db8::1")))
                .isFalse();
    }

    @Test
    void theDockerDeploymentFileResolves() throws IOException {
        AgentConfig c =
                AgentKeys.fromYaml(
                        java.nio.file.Files.readString(Path.of("../docker/agent/agent.yaml")));
        assertThat(c.agentId()).isEqualTo("flowhouse-docker-agent");
        assertThat(c.kafka().bootstrapServers()).isEqualTo("kafka:9092");
        assertThat(c.spool().maxBytes()).isEqualTo(2L << 30);
        assertThat(c.metrics().host()).isEqualTo("0.0.0.0");
    }

    @Test
    void stampStreamsAreBounded() {
        assertThat(AgentKeys.defaults().udp().maxExporterStreams()).isEqualTo(65_536);
        assertThat(AgentKeys.fromYaml("udp:\n  max-exporter-streams: 1").udp().maxExporterStreams())
                .isEqualTo(1);
        assertThatThrownBy(() -> AgentKeys.fromYaml("udp:\n  max-exporter-streams: 0"))
                .hasMessageContaining("udp.max-exporter-streams");
    }
}
