// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.config.AgentKeys;
import io.flowhouse.testkit.TestDataDir;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.BindException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What stands in an agent's way at start is named, with its address and holder: a second agent on
 * the same spool directory, a second agent on the same UDP port (SO_REUSEPORT would let it share
 * the port without a word), a metrics port in use. A packet file read with the default metrics port
 * next to a running agent takes a free port instead.
 */
class AgentStartConflictsITCase {

    private static final String PID = Long.toString(ProcessHandle.current().pid());

    @TempDir Path dir;

    private static AgentConfig config(String... args) {
        return AgentCommand.configFrom(args);
    }

    private static String failure(AgentConfig config) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code =
                AgentCommand.run(
                        config,
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(1);
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aSecondAgentOnTheSameSpoolDirectoryIsRefusedNamingThePid() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).build().start()) {
            String[] args = {
                "--listen",
                "127.0.0.1:0",
                "--bootstrap-servers",
                kafka.bootstrapServers(),
                "--spool-dir",
                dir.resolve("spool").toString(),
                "--no-metrics"
            };
            try (CaptureAgent first = CaptureAgent.start(config(args))) {
                String err = failure(config(args));
                assertThat(err)
                        .contains("could not start: spool directory " + dir.resolve("spool"))
                        .contains("is in use by another agent")
                        .contains("pid " + PID)
                        .doesNotContain("Exception");
                assertThat(first.udp().boundPorts()).hasSize(1);
            }
            // Released when the first stops.
            try (CaptureAgent again = CaptureAgent.start(config(args))) {
                assertThat(again.udp().boundPorts()).hasSize(1);
            }
        }
    }

    @Test
    void aSecondAgentOnTheSameUdpPortIsRefusedNamingThePid() throws Exception {
        int port;
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).build().start()) {
            try (CaptureAgent first =
                    CaptureAgent.start(
                            config(
                                    "--listen",
                                    "[::]:" + port,
                                    "--bootstrap-servers",
                                    kafka.bootstrapServers(),
                                    "--spool-dir",
                                    dir.resolve("a").toString(),
                                    "--no-metrics"))) {
                String err =
                        failure(
                                config(
                                        "--listen",
                                        "127.0.0.1:" + port,
                                        "--bootstrap-servers",
                                        kafka.bootstrapServers(),
                                        "--spool-dir",
                                        dir.resolve("b").toString(),
                                        "--no-metrics"));
                assertThat(err)
                        .contains("UDP port " + port)
                        .contains("already bound by pid " + PID)
                        .contains("another agent on the same ports?");
                assertThat(first.udp().boundPorts()).containsExactly(port);
            }
        }
    }

    @Test
    void aTakenMetricsPortIsNamedOrReplacedForAPacketFile() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).build().start();
                ServerSocket taken = new ServerSocket()) {
            kafka.createTopic("packets.raw", 1);
            taken.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            int port = taken.getLocalPort();
            String err =
                    failure(
                            config(
                                    "--listen", "127.0.0.1:0",
                                    "--bootstrap-servers", kafka.bootstrapServers(),
                                    "--spool-dir", dir.resolve("a").toString(),
                                    "--metrics-port", Integer.toString(port)));
            assertThat(err)
                    .contains(
                            "metrics endpoint 127.0.0.1:"
                                    + port
                                    + " is already in use by pid "
                                    + PID)
                    .contains("--metrics-port")
                    .contains("--no-metrics");

            // A packet file next to a running agent, default metrics port: any free port.
            ServerSocket defaultPort = new ServerSocket();
            try (defaultPort) {
                try {
                    defaultPort.bind(
                            new InetSocketAddress(
                                    InetAddress.getByName("127.0.0.1"),
                                    AgentKeys.DEFAULT_METRICS_PORT));
                } catch (BindException e) {
                    // Taken by someone else already: just as good.
                }
                Path pcap = TestDataDir.file("packets-synthetic.pcap");
                AgentConfig file =
                        config(
                                "--pcap", pcap.toString(),
                                "--bootstrap-servers", kafka.bootstrapServers(),
                                "--spool-dir", dir.resolve("b").toString());
                assertThat(file.metrics().anyPortIfTaken()).isTrue();
                try (CaptureAgent agent = CaptureAgent.start(file)) {
                    assertThat(agent.metricsPort())
                            .isPositive()
                            .isNotEqualTo(AgentKeys.DEFAULT_METRICS_PORT);
                    assertThat(agent.packetsDone().get()).isEqualTo(42_173L);
                }
            }
        }
    }
}
