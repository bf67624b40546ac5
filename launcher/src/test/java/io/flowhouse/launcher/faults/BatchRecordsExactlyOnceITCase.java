// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import io.flowhouse.testkit.kafka.RawRecords;
import io.flowhouse.testkit.kafka.TopicReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eight exporters through the agent JVM with several datagrams of one exporter per Kafka record
 * (batch envelopes), the broker, the job and clickhouse-server, while the agent spools: the broker
 * is stopped, the agent is killed with SIGKILL while batch records wait in its spool and restarted
 * (a new epoch), and the broker comes back. Every datagram that reached Kafka, inside whatever
 * record, must then be in {@code flows} (FINAL) and {@code exporter_stats} exactly once.
 */
class BatchRecordsExactlyOnceITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final int RATE = 400;
    private static final String DB = "flowhouse_eo_batches";

    @TempDir Path dir;

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void batchRecordsThroughSpoolKillAndBrokerRestartCountEachDatagramOnce() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        try (EmbeddedKafka kafka = EmbeddedKafka.builder().partitions(4).build().start()) {
            kafka.createTopic("flows.raw", 4);
            kafka.createTopic("flows.rejected", 1);
            PipelineSettings s = FaultSupport.jobSettings(kafka.bootstrapServers(), ch, DB);
            int udpPort = FaultSupport.freeUdpPort();
            int metricsPort = FaultSupport.freeTcpPort();
            Path yaml =
                    FaultSupport.agentYaml(
                            dir,
                            "batch-records",
                            "127.0.0.1:" + udpPort,
                            kafka.bootstrapServers(),
                            "127.0.0.1",
                            metricsPort,
                            "delivery-timeout-ms: 5000",
                            "record-max-datagrams: 16",
                            "record-linger-ms: 100");
            JobClient job = FaultSupport.restartingJob(s, ch).executeAsync("batch records");
            try (AgentProcess agent =
                            new AgentProcess(yaml, dir.resolve("agent.log"), metricsPort).start();
                    MixedExporters sender = new MixedExporters(udpPort)) {
                sender.send(40, RATE); // straight to Kafka, in batch records
                sender.restart(1); // a v5 exporter starts over on its port
                sender.send(20, RATE);

                // The broker goes away: batch records go to the spool.
                kafka.stop();
                sender.send(60, RATE);
                awaitMetric(agent, "flowhouse_agent_spooled_records_total", 1);
                Thread.sleep(4_000); // a drain attempt writes the spool's buffer to its file

                // SIGKILL while spooling; what is sent while it is down is the accepted loss.
                sender.down(true);
                agent.kill9();
                sender.send(5, RATE);
                agent.start(); // a new epoch; the old run's batch records still in the spool
                sender.down(false);
                sender.send(40, RATE);
                awaitMetric(agent, "flowhouse_agent_spooled_records_total", 1);
                Thread.sleep(4_000);

                kafka.start();
                awaitSpoolEmpty(agent);
                sender.send(20, RATE);
                awaitSpoolEmpty(agent);

                Expected e = expected(kafka.bootstrapServers(), sender);
                assertThat(e.records())
                        .as("records holding several datagrams each")
                        .isLessThan(e.datagrams() / 2);
                FaultSupport.awaitScalar(
                        ch,
                        "SELECT sum(datagrams) FROM " + DB + ".exporter_stats FINAL",
                        e.datagrams(),
                        Duration.ofSeconds(180));
                FaultSupport.awaitScalar(
                        ch,
                        "SELECT sum(packets) FROM " + DB + ".flows FINAL",
                        e.packets(),
                        Duration.ofSeconds(180));
                assertThat(
                                ch.queryRows(
                                                "SELECT count(), sum(packets), sum(bytes),"
                                                        + " uniqExact(row_id, row_id_hi) FROM "
                                                        + DB
                                                        + ".flows FINAL")
                                        .get(0))
                        .as("flows FINAL")
                        .containsExactly(
                                Long.toString(e.flows()),
                                Long.toString(e.packets()),
                                Long.toString(e.bytes()),
                                Long.toString(e.flows()));
                assertThat(
                                ch.queryRows(
                                                "SELECT sum(datagrams), sum(duplicate_datagrams),"
                                                        + " sum(sequence_resets) FROM "
                                                        + DB
                                                        + ".exporter_stats FINAL")
                                        .get(0))
                        .as("exporter_stats: datagrams, duplicates, resets")
                        .containsExactly(
                                Long.toString(e.datagrams()),
                                Long.toString(e.duplicates()),
                                Long.toString(sender.restarts()));
                System.out.printf(
                        java.util.Locale.ROOT,
                        "BATCH RECORDS EXACTLY ONCE: sent %d datagrams (%d while the agent was"
                                + " down), %d in Kafka in %d records (%d of them again), %d flows"
                                + " %d packets %d bytes%n",
                        sender.sent(),
                        sender.sentWhileDown(),
                        e.datagrams(),
                        e.records(),
                        e.duplicates(),
                        e.flows(),
                        e.packets(),
                        e.bytes());
            } finally {
                FaultSupport.cancelIfRunning(job);
            }
        }
    }

    private record Expected(
            long records, long datagrams, long duplicates, long flows, long packets, long bytes) {}

    /** What Kafka holds, datagram by datagram (a batch record split into its datagrams). */
    private static Expected expected(String bootstrap, MixedExporters sender) {
        long floor = sender.sent() - sender.sentWhileDown();
        Map<String, byte[]> distinct = new HashMap<>();
        long[] dups = new long[1];
        List<ConsumerRecord<byte[], byte[]>> records =
                TopicReader.readAll(
                        bootstrap, "flows.raw", Duration.ofSeconds(60), RawRecords.atLeast(floor));
        for (ConsumerRecord<byte[], byte[]> r : records) {
            for (RawDatagram d : RawDatagramCodec.decodeAll(r.value())) {
                DatagramStamp st = d.stamp();
                assertThat(st).isNotNull();
                String id =
                        d.agentId() + "/" + st.epoch() + "/" + st.stream() + "/" + st.sequence();
                byte[] before = distinct.putIfAbsent(id, d.payload());
                if (before != null) {
                    assertThat(before).as("a stamp names one datagram").isEqualTo(d.payload());
                    dups[0]++;
                }
            }
        }
        long flows = 0;
        long packets = 0;
        long bytes = 0;
        for (byte[] p : distinct.values()) {
            long[] t = sender.totalsOf(p);
            assertThat(t).as("a datagram the sender sent").isNotNull();
            flows += t[0];
            packets += t[1];
            bytes += t[2];
        }
        assertThat((long) distinct.size()).isLessThanOrEqualTo(sender.sent());
        return new Expected(records.size(), distinct.size(), dups[0], flows, packets, bytes);
    }

    private static void awaitMetric(AgentProcess agent, String metric, long atLeast)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline && agent.metric(metric) < atLeast) {
            Thread.sleep(200);
        }
        assertThat(agent.metric(metric)).as(metric).isGreaterThanOrEqualTo(atLeast);
    }

    private static void awaitSpoolEmpty(AgentProcess agent) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline
                && (agent.metric("flowhouse_agent_spool_depth_records") > 0
                        || agent.health().contains("SPOOLING"))) {
            Thread.sleep(200);
        }
        assertThat(agent.metric("flowhouse_agent_spool_depth_records")).isZero();
    }
}
