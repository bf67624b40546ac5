// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
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
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.core.execution.JobClient;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Eight exporters (v5, v9 and IPFIX, IPv4 and IPv6 templates, several interfaces, two of them
 * restarting on their ports) through the agent JVM, the broker, the job and clickhouse-server,
 * while the agent spools: the broker is stopped, the agent is killed with SIGKILL while it spools
 * and restarted (a new epoch, the old run's spool still on disk), the broker comes back, the agent
 * is killed again as its spool drains and restarted, and a run of datagrams already in Kafka is
 * sent again byte for byte (a lost acknowledgement). Every table must then hold each datagram that
 * reached Kafka exactly once: {@code flows} (FINAL, and before any merge), {@code flows_1m} and
 * {@code flows_1h} per exporter and window (buckets and top talkers), {@code exporter_stats}
 * (datagrams, re-sends apart, the two restarts and no other reset).
 */
class ExactlyOnceFaultsITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final int RATE = 400;
    private static final String DB = "flowhouse_eo_faults";

    @TempDir Path dir;

    @Test
    @Timeout(value = 12, unit = TimeUnit.MINUTES)
    void spoolKillsDrainsAndResendsCountOnceInEveryTable() throws Exception {
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
                            "exactly-once-faults",
                            "127.0.0.1:" + udpPort,
                            kafka.bootstrapServers(),
                            "127.0.0.1",
                            metricsPort,
                            "delivery-timeout-ms: 5000");
            JobClient job = FaultSupport.restartingJob(s, ch).executeAsync("exactly once faults");
            long kills = 0;
            long began = System.nanoTime();
            try (AgentProcess agent =
                            new AgentProcess(yaml, dir.resolve("agent.log"), metricsPort).start();
                    MixedExporters sender = new MixedExporters(udpPort)) {
                sender.send(40, RATE); // 320 datagrams straight to Kafka
                sender.restart(1); // a v5 exporter starts over on its port
                sender.send(20, RATE);

                // The broker goes away: the agent spools.
                kafka.stop();
                sender.send(60, RATE);
                sender.restart(6); // an IPFIX exporter starts over, while spooling
                sender.send(20, RATE);
                awaitSpooled(agent, 80L * MixedExporters.EXPORTERS);
                Thread.sleep(4_000); // a drain attempt writes the spool's buffer to its file

                // SIGKILL while spooling; what is sent while it is down is the accepted loss.
                sender.down(true);
                agent.kill9();
                kills++;
                sender.send(5, RATE);
                agent.start(); // a new epoch; the old run's spool is still there
                sender.down(false);
                sender.send(40, RATE);
                awaitSpooled(agent, 40L * MixedExporters.EXPORTERS);
                Thread.sleep(4_000);

                // The broker is back: the spool drains; SIGKILL again in the middle of it.
                kafka.start();
                awaitDrainStarted(agent);
                agent.kill9();
                kills++;
                agent.start();
                sender.send(40, RATE);
                awaitSpoolEmpty(agent);

                // A lost acknowledgement: records already in Kafka are sent again as they are.
                int resent = resend(kafka.bootstrapServers(), 200);

                // The rollup windows close once the watermark (receive time, 5 s behind) passes
                // them: one more round after the next minute has started.
                long minute = 60_000L;
                long next = (System.currentTimeMillis() / minute + 1) * minute;
                Thread.sleep(next - System.currentTimeMillis() + 8_000);
                long lastMinute = next / 1000;
                sender.send(4, RATE);
                awaitSpoolEmpty(agent);

                Expected e = expected(kafka.bootstrapServers(), sender);
                assertThat(e.duplicates()).isGreaterThanOrEqualTo(resent);
                awaitScalar(ch, "SELECT sum(packets) FROM " + DB + ".flows FINAL", e.packets());
                List<String> raw =
                        ch.queryRows(
                                        "SELECT count(), sum(packets), sum(bytes),"
                                                + " uniqExact(row_id, row_id_hi) FROM "
                                                + DB
                                                + ".flows FINAL")
                                .get(0);
                assertThat(raw)
                        .as("flows FINAL")
                        .containsExactly(
                                Long.toString(e.flows()),
                                Long.toString(e.packets()),
                                Long.toString(e.bytes()),
                                Long.toString(e.flows()));
                long plain = Long.parseLong(ch.queryScalar("SELECT count() FROM " + DB + ".flows"));

                assertRollupsExact(ch, lastMinute);

                // Exporter statistics: every datagram in Kafka once, the re-sends apart, the two
                // restarts the only resets.
                String stats =
                        "SELECT sum(datagrams), sum(duplicate_datagrams), sum(sequence_resets)"
                                + " FROM "
                                + DB
                                + ".exporter_stats FINAL";
                awaitScalar(
                        ch,
                        "SELECT sum(datagrams) FROM " + DB + ".exporter_stats FINAL",
                        e.datagrams());
                assertThat(ch.queryRows(stats).get(0))
                        .as(
                                "exporter_stats: datagrams, duplicates, resets (where: %s)",
                                ch.queryRows(
                                        "SELECT exporter_port, version, minute, sequence_resets"
                                                + " FROM "
                                                + DB
                                                + ".exporter_stats FINAL WHERE sequence_resets > 0"))
                        .containsExactly(
                                Long.toString(e.datagrams()),
                                Long.toString(e.duplicates()),
                                Long.toString(sender.restarts()));
                // The traffic's hour closes only at its end on the receive clock: a drained stop.
                FaultSupport.drainedStop(job, dir.resolve("savepoints"));
                FaultSupport.assertHourExact(ch::queryRows, DB);
                long lostUnexpected = e.sentAccepted() - e.datagrams();
                FaultSupport.row(
                        "e2e 8 exporters: agent kill -9 x2 spooling/draining, re-sends",
                        sender.sent(),
                        e.datagrams(),
                        sender.sentWhileDown(),
                        lostUnexpected,
                        plain - e.flows(),
                        Duration.ofNanos(System.nanoTime() - began),
                        "flows FINAL + pre-merge, flows_1m, exporter_stats, flows_1h after a"
                                + " drained stop; "
                                + e.duplicates()
                                + " re-sent datagrams in Kafka, counted once; "
                                + kills
                                + " kills");
                System.out.printf(
                        java.util.Locale.ROOT,
                        "EXACTLY ONCE FAULTS: sent %d datagrams (%d while the agent was down), %d in"
                                + " Kafka (%d of them again), %d flows %d packets %d bytes;"
                                + " %d rows before merges%n",
                        sender.sent(),
                        sender.sentWhileDown(),
                        e.datagrams(),
                        e.duplicates(),
                        e.flows(),
                        e.packets(),
                        e.bytes(),
                        plain);
            } finally {
                FaultSupport.cancelIfRunning(job);
            }
        }
    }

    /**
     * Every closed rollup window, per exporter, equals the raw flows of that window, and its top
     * talkers are the raw flows' top talkers. A top-talker row is one of the N largest sources per
     * window and exporter ({@code flowhouse.rollup.top-n}, 20), the exporter being its address: the
     * eight exporters all send from 127.0.0.1, so one exporter here with 96 sources (12 each), and
     * the top rows hold about a third of the window's bytes, not all of it (what the check before
     * this one expected). So each window's top-talker bytes, rank by rank, must equal the 20
     * largest per-source sums of the raw table (the summaries hold far fewer sources than their
     * capacity, so they are exact).
     */
    private static void assertRollupsExact(LocalClickHouse ch, long lastMinute) throws Exception {
        String closed = "window_start < toDateTime(" + lastMinute + ")";
        String rawByWindow =
                "SELECT exporter, toStartOfMinute(flow_end) AS w, count(), sum(packets),"
                        + " sum(bytes) FROM "
                        + DB
                        + ".flows FINAL WHERE flow_end < toDateTime("
                        + lastMinute
                        + ") GROUP BY exporter, w ORDER BY exporter, w";
        String oneMinute =
                "SELECT exporter, window_start, sum(flows), sum(packets), sum(bytes) FROM "
                        + DB
                        + ".flows_1m FINAL WHERE kind = 'interface' AND direction = 0 AND "
                        + closed
                        + " GROUP BY exporter, window_start ORDER BY exporter, window_start";
        awaitRows(ch, oneMinute, ch.queryRows(rawByWindow));
        assertThat(ch.queryRows(oneMinute)).as("flows_1m").isEqualTo(ch.queryRows(rawByWindow));
        String rawTalkers =
                "SELECT exporter, w, b FROM (SELECT exporter, toStartOfMinute(flow_end) AS w,"
                        + " src_addr, sum(bytes) AS b FROM "
                        + DB
                        + ".flows FINAL WHERE flow_end < toDateTime("
                        + lastMinute
                        + ") GROUP BY exporter, w, src_addr) ORDER BY exporter, w, b DESC"
                        + " LIMIT 20 BY exporter, w";
        String talkers =
                "SELECT exporter, window_start, bytes FROM "
                        + DB
                        + ".flows_1m FINAL WHERE kind = 'top_talker' AND "
                        + closed
                        + " ORDER BY exporter, window_start, rank";
        List<List<String>> expected = ch.queryRows(rawTalkers);
        awaitRows(ch, talkers, expected);
        assertThat(ch.queryRows(talkers)).as("top talkers").isEqualTo(expected);
    }

    /** What reached Kafka: distinct datagrams (by stamp) and their totals, and the duplicates. */
    record Expected(
            long datagrams,
            long duplicates,
            long flows,
            long packets,
            long bytes,
            long sentAccepted) {}

    private static Expected expected(String bootstrap, MixedExporters sender) {
        long floor = sender.sent() - sender.sentWhileDown();
        List<ConsumerRecord<byte[], byte[]>> records =
                TopicReader.readAll(
                        bootstrap, "flows.raw", Duration.ofSeconds(30), RawRecords.atLeast(floor));
        Map<String, byte[]> distinct = new HashMap<>();
        long dups = 0;
        for (RawDatagram d : RawRecords.datagrams(records)) {
            DatagramStamp st = d.stamp();
            assertThat(st).isNotNull();
            String id = d.agentId() + "/" + st.epoch() + "/" + st.stream() + "/" + st.sequence();
            byte[] before = distinct.putIfAbsent(id, d.payload());
            if (before != null) {
                assertThat(before).as("a stamp names one datagram").isEqualTo(d.payload());
                dups++;
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
        return new Expected(
                distinct.size(),
                dups,
                flows,
                packets,
                bytes,
                sender.sent() - sender.sentWhileDown());
    }

    /** Produces {@code n} records of the raw topic again, byte for byte, with their keys. */
    private static int resend(String bootstrap, int n) throws Exception {
        List<ConsumerRecord<byte[], byte[]>> records =
                TopicReader.readAll(
                        bootstrap, "flows.raw", Duration.ofSeconds(30), got -> got.size() >= n * 3);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        int sent = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            // Every third record from the start: spread over exporters, partitions and epochs.
            for (int i = 0; i < records.size() && sent < n; i += 3) {
                ConsumerRecord<byte[], byte[]> r = records.get(i);
                producer.send(
                                new ProducerRecord<>(
                                        "flows.raw", null, r.timestamp(), r.key(), r.value()))
                        .get(30, TimeUnit.SECONDS);
                sent++;
            }
        }
        return sent;
    }

    private static void awaitSpooled(AgentProcess agent, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        // Datagrams, not records: a batch record holds several.
        while (System.nanoTime() < deadline
                && agent.metric("flowhouse_agent_spooled_datagrams_total") < atLeast) {
            Thread.sleep(200);
        }
        assertThat(agent.metric("flowhouse_agent_spooled_datagrams_total"))
                .isGreaterThanOrEqualTo(atLeast);
    }

    private static void awaitDrainStarted(AgentProcess agent) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline
                && agent.metric("flowhouse_agent_unspooled_records_total") == 0) {
            Thread.sleep(20);
        }
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

    private static void awaitScalar(LocalClickHouse ch, String sql, long atLeast)
            throws InterruptedException {
        FaultSupport.awaitScalar(ch, sql, atLeast, Duration.ofSeconds(180));
    }

    /** Polls until the query returns {@code rows}; bounded in time. */
    private static void awaitRows(LocalClickHouse ch, String sql, List<List<String>> rows)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (System.nanoTime() < deadline && !ch.queryRows(sql).equals(rows)) {
            Thread.sleep(1_000);
        }
    }
}
