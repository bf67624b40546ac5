// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.net.SilentTcpCollector;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.zeromq.SocketType;
import org.zeromq.ZContext;
import org.zeromq.ZMQ;

/**
 * Fan-out peers that stop reading, while the job writes ClickHouse on a MiniCluster: a TCP IPFIX
 * collector that accepts and never reads (a real socket with a 4 KiB receive buffer), and a ZMQ
 * subscriber that never reads beside one that does. Every flow still reaches ClickHouse (the ground
 * truth), the reading subscriber gets every flow, the IPFIX losses are counted in the writer's
 * metrics, and the job never restarts.
 */
class StalledFanOutITCase {

    private static final InMemoryReporter REPORTER = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(2).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setConfiguration(REPORTER.addToConfiguration(new Configuration()))
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void peersThatStopReadingCostCountedDropsNeverTheJob() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        int zmqPort = FanOutPeers.freeTcpPort();
        List<RawDatagram> all = new ArrayList<>();
        long records = 0;
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            CaptureProducer.Capture c = CaptureProducer.CAPTURES.get(i);
            all.addAll(
                    CaptureProducer.datagrams(
                            c.file(), IpAddress.parse("192.0.2." + (10 + i)), 42_000 + i));
            records += c.records();
        }
        try (SilentTcpCollector silent = new SilentTcpCollector(4096);
                ZContext zmq = new ZContext()) {
            PipelineSettings s =
                    PipelineHarness.settings(
                            KAFKA.bootstrapServers(),
                            ch,
                            "stall",
                            "--kafka.stop",
                            "latest",
                            "--ipfix.targets",
                            "127.0.0.1:" + silent.port() + "/tcp",
                            "--ipfix.send-buffer-bytes",
                            "8192",
                            "--ipfix.tcp.write-timeout",
                            "1s",
                            "--ipfix.queue-capacity",
                            "1000",
                            "--zmq.endpoint",
                            "tcp://127.0.0.1:" + zmqPort,
                            "--flowhouse.zmq.await-subscriber",
                            "30s",
                            "--zmq.linger",
                            "5s");
            KAFKA.createTopic(s.rawTopic(), 2);
            CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), all);

            // The stalled subscriber: subscribed to everything, small buffers, never reads.
            ZMQ.Socket stalled = zmq.createSocket(SocketType.SUB);
            stalled.setRcvHWM(1);
            stalled.setReceiveBufferSize(4096);
            stalled.subscribe(new byte[0]);
            stalled.connect("tcp://127.0.0.1:" + zmqPort);
            FanOutPeers.TlvSubscriber reading =
                    new FanOutPeers.TlvSubscriber("tcp://127.0.0.1:" + zmqPort);
            long start = System.nanoTime();
            try {
                PipelineHarness.environment(s, ch).execute("stalled fan-out");
            } finally {
                reading.awaitFlows(records, 30);
                reading.stop();
            }
            double seconds = (System.nanoTime() - start) / 1e9;

            List<List<String>> rows =
                    ch.queryRows(
                            "SELECT count(), sum(packets + reverse_packets)"
                                    + " FROM flowhouse_stall.flows FINAL");
            assertThat(Long.parseLong(rows.get(0).get(0)))
                    .as("rows in ClickHouse")
                    .isEqualTo(records);
            assertThat(reading.failure()).isNull();
            assertThat(reading.flows.size())
                    .as("flows at the reading subscriber")
                    .isEqualTo(records);

            // Identifier -> metric of this job's groups (the job's name is in each identifier;
            // getMetricsByIdentifiers fails on Flink's duplicate numBytesOut names).
            Map<String, Metric> metrics = new java.util.HashMap<>();
            REPORTER.getMetricsByGroup()
                    .forEach(
                            (group, byName) ->
                                    byName.forEach(
                                            (name, metric) -> {
                                                String id = group.getMetricIdentifier(name);
                                                if (id.contains("stalled fan-out")) {
                                                    metrics.putIfAbsent(id, metric);
                                                }
                                            }));
            long restarts = sum(metrics, "", "numRestarts");
            long ipfixSent = sum(metrics, ".ipfix.", "records_sent");
            long ipfixDropped =
                    sum(metrics, ".ipfix.", "records_dropped")
                            + sum(metrics, ".ipfix.", "queue_dropped");
            long writeTimeouts = sum(metrics, ".ipfix.", "write_timeouts");
            long zmqDropped = sum(metrics, ".zmq.", "flows_dropped");
            assertThat(metrics.keySet()).anyMatch(k -> k.endsWith("numRestarts"));
            assertThat(restarts).as("job restarts").isZero();
            assertThat(writeTimeouts).as("IPFIX write timeouts").isPositive();
            assertThat(ipfixDropped).as("IPFIX flows and records dropped, counted").isPositive();
            assertThat(zmqDropped).as("flows the ZMQ sink dropped").isZero();
            System.out.printf(
                    "stalled fan-out: %,d flows in ClickHouse in %.1f s (job start to end);"
                            + " reading ZMQ subscriber got %,d; IPFIX %,d records sent, %,d"
                            + " dropped (records + queue), %d write timeouts, %d connections;"
                            + " %d restarts%n",
                    records,
                    seconds,
                    reading.flows.size(),
                    ipfixSent,
                    ipfixDropped,
                    writeTimeouts,
                    silent.connections(),
                    restarts);
        }
    }

    /** The sum of the numeric gauges named {@code name} under a group containing {@code group}. */
    private static long sum(Map<String, Metric> metrics, String group, String name) {
        long total = 0;
        for (Map.Entry<String, Metric> e : metrics.entrySet()) {
            String id = e.getKey();
            if (id.endsWith("." + name)
                    && id.contains(group)
                    && e.getValue() instanceof Gauge<?> g) {
                Object v = g.getValue();
                if (v instanceof Number n) {
                    total += n.longValue();
                }
            }
        }
        return total;
    }
}
