// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import static io.flowhouse.agent.AgentFullDiskITCase.await;
import static io.flowhouse.agent.AgentFullDiskITCase.http;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Spoofed sources cannot grow the agent's metrics: 4,000 exporters, each a distinct loopback
 * address (127.1.x.y: Linux routes all of 127/8 to lo), with metrics.max-exporters 100. /metrics
 * labels at most 100 addresses plus "other", counts what it folded, stays small, and the series of
 * silent exporters go after metrics.exporter-ttl, making room for new ones. The TTL (30 s) is
 * longer than sending takes on a loaded machine, so that no series expires while the counts are
 * checked.
 */
class MetricsSeriesBoundITCase {

    private static final int SOURCES = 4_000;
    private static final int MAX = 100;

    @TempDir Path dir;

    /** A NetFlow v5 datagram with one record: passes the header check. */
    private static byte[] v5() {
        ByteBuffer b = ByteBuffer.allocate(24 + 48);
        b.putShort((short) 5).putShort((short) 1);
        return b.array();
    }

    @Test
    void manySpoofedSourcesStayWithinTheBound() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(1).build().start()) {
            kafka.createTopic("flows.raw", 1);
            kafka.createTopic("flows.rejected", 1);
            try (CaptureAgent agent =
                    CaptureAgent.start(
                            AgentCommand.configFrom(
                                    new String[] {
                                        "--listen", "127.0.0.1:0",
                                        "--bootstrap-servers", kafka.bootstrapServers(),
                                        "--spool-dir", dir.resolve("spool").toString(),
                                        "--metrics-port", "0",
                                        "--set", "metrics.max-exporters=" + MAX,
                                        "--set", "metrics.exporter-ttl=30s",
                                        "--set", "udp.sockets-per-listener=1"
                                    }))) {
                InetSocketAddress target = agent.udp().localAddresses().get(0);
                send(target, 0, SOURCES);
                await(() -> agent.metrics().datagrams() >= SOURCES, Duration.ofSeconds(30));
                String metrics = http(agent.metricsPort(), "/metrics");
                Set<String> labelled = exporters(metrics);
                assertThat(labelled).hasSize(MAX + 1).contains("other");
                assertThat(agent.metrics().exporterSeries()).isEqualTo(MAX);
                assertThat(agent.metrics().foldedDatagrams()).isEqualTo(SOURCES - MAX);
                assertThat(value(metrics, "flowhouse_agent_exporter_folded_datagrams_total"))
                        .isEqualTo(SOURCES - MAX);
                assertThat(value(metrics, "flowhouse_agent_datagrams_total{exporter=\"other\","))
                        .isEqualTo(SOURCES - MAX);
                int bytes = metrics.length();
                System.out.printf(
                        "%d spoofed sources: %d exporter labels, %d folded into other, /metrics"
                                + " %d bytes%n",
                        SOURCES, labelled.size(), agent.metrics().foldedDatagrams(), bytes);
                // Four times as many sources, about the same size.
                send(target, SOURCES, 3 * SOURCES);
                await(() -> agent.metrics().datagrams() >= 4 * SOURCES, Duration.ofSeconds(30));
                String more = http(agent.metricsPort(), "/metrics");
                assertThat(exporters(more)).hasSize(MAX + 1);
                // Only the counters' digits grow (16,000 sources are 4x the labels' data).
                assertThat(more.length()).isLessThan(bytes + 1_000);

                // Silent for the TTL: the series go, and new exporters get their own again.
                await(() -> agent.metrics().exporterSeries() == 0, Duration.ofSeconds(60));
                String after = http(agent.metricsPort(), "/metrics");
                assertThat(exporters(after)).containsExactly("other");
                assertThat(value(after, "flowhouse_agent_exporter_series_expired_total"))
                        .isEqualTo(MAX);
                send(target, 20_000, 5);
                await(() -> agent.metrics().exporterSeries() == 5, Duration.ofSeconds(10));
                assertThat(agent.metrics().datagrams()).isEqualTo(4L * SOURCES + 5);
            }
        }
    }

    /** One datagram from each of {@code n} addresses 127.1.x.y starting at the {@code from}th. */
    private static void send(InetSocketAddress target, int from, int n) throws Exception {
        for (int i = from; i < from + n; i++) {
            InetAddress source =
                    InetAddress.getByAddress(
                            new byte[] {127, (byte) (1 + i / 65_536), (byte) (i / 256), (byte) i});
            try (DatagramChannel ch = DatagramChannel.open()) {
                ch.bind(new InetSocketAddress(source, 0));
                ch.send(ByteBuffer.wrap(v5()), target);
            }
            if (i % 500 == 499) {
                // Let the receive thread keep up (one socket, default buffer).
                Thread.sleep(20);
            }
        }
    }

    private static Set<String> exporters(String metrics) {
        Set<String> out = new TreeSet<>();
        Matcher m =
                Pattern.compile("flowhouse_agent_datagrams_total\\{exporter=\"([^\"]+)\"")
                        .matcher(metrics);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    private static long value(String metrics, String prefix) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(prefix)) {
                return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no " + prefix + " in /metrics");
    }
}
