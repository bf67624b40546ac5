// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.CaptureAgent;
import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.TestDataDir;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packet flows end when their source goes quiet, on a running pipeline (the production topology on
 * a local cluster, the broker, clickhouse-server), as after {@code ./flowhouse up}: the capture
 * agent reads {@code packets-synthetic.pcap} (packet time in 2024, far behind the wall clock) and
 * every one of its 42,173 packets is in {@code flows} a few seconds after the file ends, by its
 * end-of-capture mark; then a live capture on loopback carries 200 datagrams and goes quiet while
 * the agent keeps running, and its flows end on the wall clock (clock ticks) within the idle
 * timeout plus the out-of-orderness plus a few seconds.
 */
class PacketFlowsEndITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final String DATABASE = "flowhouse_pktend";
    private static final long TRACE_PACKETS = 42_173L;
    private static final Duration IDLE = Duration.ofSeconds(5);
    private static final Duration OUT_OF_ORDER = Duration.ofSeconds(10);
    private static final Duration SLACK = Duration.ofSeconds(10);
    private static final int LIVE = 200;

    @TempDir Path dir;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aPacketFileAndAQuietLiveCaptureEndAllTheirFlows() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(2).build().start()) {
            kafka.createTopic("flows.raw", 2);
            kafka.createTopic("flows.rejected", 1);
            kafka.createTopic("packets.raw", 2);
            PipelineSettings s = settings(kafka.bootstrapServers(), ch);
            JobClient job = environment(s, ch).executeAsync("packet flows end");
            try {
                String flows = DATABASE + ".flows FINAL";
                // 1. A packet file into the running pipeline (20x: no packet is late at 10 s).
                try (CaptureAgent agent =
                        CaptureAgent.start(
                                AgentCommand.configFrom(
                                        "--pcap",
                                        TestDataDir.file("packets-synthetic.pcap").toString(),
                                        "--speed",
                                        "20x",
                                        "--bootstrap-servers",
                                        kafka.bootstrapServers(),
                                        "--spool-dir",
                                        dir.resolve("spool-file").toString(),
                                        "--no-metrics"))) {
                    assertThat(agent.packetsDone().get(3, TimeUnit.MINUTES))
                            .isEqualTo(TRACE_PACKETS);
                    assertThat(agent.metrics().endOfCaptureMarks()).isPositive();
                }
                long fileEnded = System.nanoTime();
                String filePackets =
                        "SELECT sum(packets) FROM " + flows + " WHERE version = 0 AND in_if = 1";
                long got = awaitScalar(ch, filePackets, TRACE_PACKETS, IDLE.plus(SLACK));
                double secs = (System.nanoTime() - fileEnded) / 1e9;
                System.out.printf(
                        "packet file: %d of %d packets in flows %.1f s after the file ended, %s"
                                + " flows%n",
                        got,
                        TRACE_PACKETS,
                        secs,
                        ch.queryScalar(
                                "SELECT count() FROM "
                                        + flows
                                        + " WHERE version = 0 AND in_if = 1"));
                assertThat(got).isEqualTo(TRACE_PACKETS);

                // 2. A live capture on loopback that goes quiet: its flows end on the wall clock.
                boolean libpcap =
                        Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libpcap.so.0.8"))
                                || Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libpcap.so"))
                                || Files.exists(Path.of("/usr/lib/libpcap.so.0.8"));
                ServiceRequirement.require(libpcap, "libpcap (apt-get install -y libpcap0.8)");
                ServiceRequirement.require(
                        "root".equals(System.getProperty("user.name")),
                        "root or CAP_NET_RAW for live capture on lo");
                try (DatagramChannel rx = DatagramChannel.open();
                        DatagramChannel tx = DatagramChannel.open()) {
                    rx.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
                    tx.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
                    int port = ((InetSocketAddress) rx.getLocalAddress()).getPort();
                    try (CaptureAgent live =
                            CaptureAgent.start(
                                    AgentCommand.configFrom(
                                            "--interface",
                                            "lo",
                                            "--filter",
                                            "udp and dst port " + port,
                                            "--bootstrap-servers",
                                            kafka.bootstrapServers(),
                                            "--spool-dir",
                                            dir.resolve("spool-live").toString(),
                                            "--no-metrics",
                                            "--set",
                                            "packets.interface-index=2",
                                            "--set",
                                            "packets.clock-tick-ms=500"))) {
                        Thread.sleep(500); // the capture handle is open; margin for lo
                        for (int i = 0; i < LIVE; i++) {
                            tx.send(ByteBuffer.wrap(new byte[100]), rx.getLocalAddress());
                            Thread.sleep(5);
                        }
                        long quiet = System.nanoTime();
                        String livePackets =
                                "SELECT sum(packets) FROM "
                                        + flows
                                        + " WHERE version = 0 AND in_if = 2";
                        long liveGot =
                                awaitScalar(
                                        ch, livePackets, LIVE, IDLE.plus(OUT_OF_ORDER).plus(SLACK));
                        double liveSecs = (System.nanoTime() - quiet) / 1e9;
                        System.out.printf(
                                "live capture: %d of %d packets in flows %.1f s after it went"
                                        + " quiet (idle timeout %d s, out-of-orderness %d s),"
                                        + " %d clock ticks%n",
                                liveGot,
                                LIVE,
                                liveSecs,
                                IDLE.toSeconds(),
                                OUT_OF_ORDER.toSeconds(),
                                live.metrics().clockTicks());
                        assertThat(liveGot).isEqualTo(LIVE);
                        assertThat(live.metrics().clockTicks()).isPositive();
                        assertThat(live.metrics().endOfCaptureMarks()).isZero();
                        assertThat(
                                        ch.queryScalar(
                                                "SELECT groupUniqArray(flow_end_reason) FROM "
                                                        + flows
                                                        + " WHERE version = 0 AND in_if = 2"))
                                .isEqualTo("[1]");
                    }
                }
            } finally {
                job.cancel().get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static PipelineSettings settings(String bootstrap, LocalClickHouse ch) {
        String[] args = {
            "--kafka.bootstrap-servers", bootstrap,
            "--kafka.topic.raw", "flows.raw",
            "--kafka.topic.rejected", "flows.rejected",
            "--kafka.topic.templates", "flows.templates",
            "--flowhouse.packets.topic", "packets.raw",
            "--kafka.group-id", DATABASE,
            "--kafka.start", "earliest",
            "--job.parallelism", "1",
            "--job.checkpoint-interval", "1 s",
            "--flowhouse.packets.idle-timeout", IDLE.toSeconds() + " s",
            "--flowhouse.packets.max-out-of-orderness", OUT_OF_ORDER.toSeconds() + " s",
            "--clickhouse.url", ch.httpUrl(),
            "--clickhouse.database", DATABASE,
            "--clickhouse.user", ch.user(),
            "--clickhouse.batch-size", "5000",
            "--clickhouse.flush-interval", "500 ms"
        };
        return PipelineSettings.from(JobArgs.resolve(Map.of(), args), Map.of());
    }

    private static StreamExecutionEnvironment environment(PipelineSettings s, LocalClickHouse ch)
            throws Exception {
        Configuration c = new Configuration();
        c.set(RestOptions.BIND_ADDRESS, "127.0.0.1");
        c.set(RestOptions.ADDRESS, "127.0.0.1");
        c.set(RestOptions.BIND_PORT, Integer.toString(FaultSupport.freeTcpPort()));
        return FaultSupport.productionJob(c, s, ch);
    }

    /** Polls until the query's number reaches {@code expected} or {@code within} passed. */
    private static long awaitScalar(LocalClickHouse ch, String sql, long expected, Duration within)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        long last = 0;
        while (System.nanoTime() < deadline) {
            try {
                String v = ch.queryScalar(sql);
                last = v.isEmpty() ? 0 : Long.parseLong(v);
                if (last >= expected) {
                    return last;
                }
            } catch (RuntimeException e) {
                // Table not there yet: poll again.
            }
            Thread.sleep(250);
        }
        return last;
    }
}
