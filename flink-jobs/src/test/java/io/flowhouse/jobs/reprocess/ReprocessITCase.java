// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.reprocess;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.FlowHash;
import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import io.flowhouse.config.Config;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.ageing.Packets;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.testkit.TestDataDir;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Stream, then reprocess: the synthetic packet trace (to {@code packets.raw}, batched and keyed as
 * the agent does) and softflowd's IPFIX export of it (to {@code flows.raw}) go through the
 * streaming topology on a MiniCluster into ClickHouse (raw flows + 1 m and 1 h rollups); then
 * {@link ReprocessJob} in BATCH mode over the same Kafka time range writes a separate database with
 * a 5 m rollup. Raw totals, row ids and rollup totals match the streamed ones exactly, and the
 * packet totals equal the trace; running the reprocessing again changes nothing, and so does
 * reprocessing with the keyed flow table instead of the default bucketed one.
 */
class ReprocessITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final String IPFIX = "ipfix-softflowd.pcap";

    private static List<String> args(LocalClickHouse ch, String db, String... extra) {
        List<String> a =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers", KAFKA.bootstrapServers(),
                                "--kafka.topic.raw", "flows.raw.rp",
                                "--kafka.topic.rejected", "flows.rejected.rp",
                                "--kafka.topic.templates", "flows.templates.rp",
                                "--flowhouse.packets.topic", "packets.raw.rp",
                                "--kafka.group-id", "itcase-rp",
                                "--kafka.start", "earliest",
                                "--kafka.stop", "latest",
                                "--job.parallelism", "2",
                                "--job.checkpoint-interval", "2 s",
                                "--clickhouse.url", ch.httpUrl(),
                                "--clickhouse.database", db,
                                "--clickhouse.user", ch.user(),
                                "--clickhouse.batch-size", "20000",
                                "--clickhouse.flush-interval", "500 ms",
                                // pmacct's timeouts, as in SyntheticTraceAgeingTest: the idle
                                // deadline moves with every packet, so timers re-arm (in BATCH
                                // mode the last ones fire at the end of each key).
                                "--flowhouse.packets.active-timeout", "120 s",
                                "--flowhouse.packets.idle-timeout", "30 s",
                                "--flowhouse.packets.tcp-end-timeout", "10 s",
                                // The trace is produced at max speed: a batch of one flow bucket
                                // spans minutes of packet time, so allow the whole 600 s trace.
                                "--flowhouse.packets.max-out-of-orderness", "15 min",
                                // The two topics are read at different speeds: hold the rollup
                                // watermark back far enough that no piece is late in this test.
                                "--flowhouse.rollup.max-out-of-orderness", "1 h"));
        a.addAll(List.of(extra));
        return a;
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void reprocessingMatchesTheStreamedTotalsAndIsIdempotent() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        long[] range = produceInputs();

        // 1. Stream (STREAMING mode, sources bounded at the latest offsets).
        Config conf = JobArgs.resolve(Map.of(), args(ch, "rp_stream").toArray(String[]::new));
        PipelineSettings s = ReprocessJob.settings(conf);
        JobTables o = s.clickhouse().tables().withPassword(ch.password());
        StreamExecutionEnvironment env = environment();
        FlowPipelineJob.configure(env, s);
        KafkaTopics.ensure(s);
        // The production graph: packets read from the start to the latest offsets (--kafka.start,
        // --kafka.stop), as the flows.
        FlowPipelineJob.build(
                env, PipelineConnectors.sources(s), PipelineConnectors.sinks(s, o), s);
        env.execute("stream");

        List<String> streamedRaw = raw(ch, "rp_stream");
        List<String> packetFlows =
                ch.queryRows(
                                "SELECT count(), sum(packets), sum(bytes) FROM rp_stream.flows FINAL"
                                        + " WHERE version = 0")
                        .get(0);
        assertThat(Long.parseLong(packetFlows.get(1))).isEqualTo(Packets.TRACE_PACKETS);
        assertThat(Long.parseLong(packetFlows.get(2))).isEqualTo(Packets.TRACE_BYTES);
        List<String> ipfix =
                ch.queryRows(
                                "SELECT count(), sum(packets), sum(bytes) FROM rp_stream.flows FINAL"
                                        + " WHERE version = 10")
                        .get(0);
        assertThat(ipfix).containsExactly("2991", "42173", "31011641");
        assertThat(rollup(ch, "rp_stream", "flows_1m")).isEqualTo(rawAsRollup(streamedRaw));
        assertThat(rollup(ch, "rp_stream", "flows_1h")).isEqualTo(rawAsRollup(streamedRaw));
        assertThat(
                        ch.queryRows(
                                "SELECT max(c) FROM (SELECT count() AS c FROM rp_stream.flows_1m"
                                        + " FINAL WHERE kind = 'top_talker' GROUP BY window_start,"
                                        + " exporter)"))
                .containsExactly(List.of("20"));
        // The trace's addresses fit the talker summaries: every top row is exact.
        assertThat(
                        ch.queryRows(
                                "SELECT count() > 0, countIf(bytes_error != 0) FROM rp_stream.flows_1h"
                                        + " FINAL WHERE kind IN ('top_talker', 'top_conversation')"))
                .containsExactly(List.of("1", "0"));

        // 2. Reprocess the same Kafka range in BATCH mode into another database, at 5 minutes.
        String[] reprocess = {
            "--from",
            Long.toString(range[0]),
            "--to",
            Long.toString(range[1]),
            "--target-database",
            "rp_batch",
            "--resolutions",
            "5m"
        };
        runReprocess(ch, reprocess);
        List<String> batchRaw = raw(ch, "rp_batch");
        assertThat(batchRaw).isEqualTo(streamedRaw);
        assertThat(rowIds(ch, "rp_batch")).isEqualTo(rowIds(ch, "rp_stream"));
        assertThat(rollup(ch, "rp_batch", "flows_5m")).isEqualTo(rawAsRollup(streamedRaw));

        // 3. Again: nothing changes (rows replace, never add).
        List<String> before5m = rollupRows(ch, "rp_batch", "flows_5m");
        runReprocess(ch, reprocess);
        assertThat(raw(ch, "rp_batch")).isEqualTo(batchRaw);
        assertThat(rowIds(ch, "rp_batch")).isEqualTo(rowIds(ch, "rp_stream"));
        assertThat(rollupRows(ch, "rp_batch", "flows_5m")).isEqualTo(before5m);
        assertThat(rollup(ch, "rp_batch", "flows_5m")).isEqualTo(rawAsRollup(streamedRaw));

        // 4. The keyed flow table (one state entry per flow; the runs above used the default
        // bucketed table) ages the packets into the very same rows.
        runReprocess(
                ch,
                new String[] {
                    "--from",
                    Long.toString(range[0]),
                    "--to",
                    Long.toString(range[1]),
                    "--target-database",
                    "rp_keyed",
                    "--resolutions",
                    "5m",
                    "--flowhouse.packets.flow-table",
                    "keyed"
                });
        assertThat(raw(ch, "rp_keyed")).isEqualTo(streamedRaw);
        assertThat(rowIds(ch, "rp_keyed")).isEqualTo(rowIds(ch, "rp_stream"));
    }

    private static void runReprocess(LocalClickHouse ch, String[] flags) throws Exception {
        List<String> all = new ArrayList<>(List.of(flags));
        all.addAll(args(ch, "rp_stream"));
        ReprocessArgs a = ReprocessArgs.parse(all.toArray(String[]::new));
        PipelineSettings s = ReprocessJob.settings(a.job());
        JobTables o = s.clickhouse().tables().withPassword(ch.password());
        StreamExecutionEnvironment env = environment();
        ReprocessJob.build(env, s, a, o);
        env.execute("reprocess");
    }

    private static StreamExecutionEnvironment environment() {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(1));
        return StreamExecutionEnvironment.getExecutionEnvironment(c);
    }

    /** Raw totals: flows, packets and bytes (both directions, scaled by sampling), row ids. */
    private static List<String> raw(LocalClickHouse ch, String db) {
        return ch.queryRows(
                        "SELECT count(), sum((packets + reverse_packets) * sampling_rate),"
                                + " sum((bytes + reverse_bytes) * sampling_rate), uniqExact(row_id)"
                                + " FROM "
                                + db
                                + ".flows FINAL")
                .get(0);
    }

    private static List<String> rawAsRollup(List<String> raw) {
        return List.of(raw.get(0), raw.get(1), raw.get(2));
    }

    /** Rollup totals over the ingress interface rows: flows, packets, bytes. */
    private static List<String> rollup(LocalClickHouse ch, String db, String table) {
        return ch.queryRows(
                        "SELECT sum(flows), sum(packets), sum(bytes) FROM "
                                + db
                                + "."
                                + table
                                + " FINAL WHERE kind = 'interface' AND direction = 0")
                .get(0);
    }

    private static List<String> rollupRows(LocalClickHouse ch, String db, String table) {
        return ch.query(
                "SELECT kind, count(), sum(bytes), sum(packets), sum(flows) FROM "
                        + db
                        + "."
                        + table
                        + " FINAL GROUP BY kind ORDER BY kind");
    }

    private static String rowIds(LocalClickHouse ch, String db) {
        return ch.query(
                        "SELECT groupBitXor(row_id), sum(row_id % 1000003) FROM "
                                + db
                                + ".flows FINAL")
                .get(0);
    }

    /**
     * Produces the trace's packets (batches of 256 per flow-hash bucket, Kafka timestamp = the wall
     * clock, as the agent stamps them) and the IPFIX export's datagrams (timestamp = capture time).
     *
     * @return the Kafka timestamp range [min, max + 1) of everything produced
     */
    private static long[] produceInputs() throws Exception {
        KAFKA.createTopic("packets.raw.rp", 4);
        KAFKA.createTopic("flows.raw.rp", 4);
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            int buckets = 64;
            PacketBatchCodec.Encoder[] batches = new PacketBatchCodec.Encoder[buckets];
            long[] first = new long[buckets];
            for (PacketSummary s : Packets.trace()) {
                int b = FlowHash.partition(s.flowHash(), buckets);
                if (batches[b] == null) {
                    batches[b] = PacketBatchCodec.encoder(1, 256 * 48);
                }
                if (batches[b].count() == 0) {
                    // As the agent does: the Kafka timestamp is the wall clock at batching.
                    first[b] = System.currentTimeMillis();
                }
                batches[b].add(s);
                if (batches[b].count() == 256) {
                    acks.add(send(producer, "packets.raw.rp", first[b], b, batches[b].finish()));
                    min = Math.min(min, first[b]);
                    max = Math.max(max, first[b]);
                }
            }
            for (int b = 0; b < buckets; b++) {
                if (batches[b] != null && batches[b].count() > 0) {
                    acks.add(send(producer, "packets.raw.rp", first[b], b, batches[b].finish()));
                    min = Math.min(min, first[b]);
                    max = Math.max(max, first[b]);
                }
            }
            UdpDatagramExtractor extractor = new UdpDatagramExtractor();
            try (PcapReader r = PcapReader.open(TestDataDir.file(IPFIX))) {
                while (r.next()) {
                    UdpDatagram u =
                            extractor.extract(r.packetLinkType(), r.packet(), r.timestampNanos());
                    if (u == null) {
                        continue;
                    }
                    ByteBuffer payload = u.payload();
                    byte[] bytes = new byte[payload.remaining()];
                    payload.duplicate().get(bytes);
                    long ts = u.timestampNanos() / 1_000_000L;
                    RawDatagram d =
                            RawDatagram.of(
                                    IpAddress.parse("192.0.2.20"), 4739, ts, "itcase", bytes);
                    acks.add(
                            producer.send(
                                    new ProducerRecord<>(
                                            "flows.raw.rp",
                                            null,
                                            ts,
                                            d.partitionKey(),
                                            RawDatagramCodec.encode(d))));
                    min = Math.min(min, ts);
                    max = Math.max(max, ts);
                }
            }
            producer.flush();
            for (Future<RecordMetadata> f : acks) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
        return new long[] {min, max + 1};
    }

    private static Future<RecordMetadata> send(
            KafkaProducer<byte[], byte[]> producer, String topic, long ts, int bucket, byte[] v) {
        byte[] key = {
            (byte) (bucket >>> 24), (byte) (bucket >>> 16), (byte) (bucket >>> 8), (byte) bucket
        };
        return producer.send(new ProducerRecord<>(topic, null, ts, key, v));
    }
}
