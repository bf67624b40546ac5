// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.it;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapReader;
import io.flowhouse.codec.pcap.UdpDatagram;
import io.flowhouse.codec.pcap.UdpDatagramExtractor;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.console.access.ConsoleUser;
import io.flowhouse.console.config.ConsoleConfig;
import io.flowhouse.console.config.ConsoleKeys;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.reprocess.ReprocessJob;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.kafka.TopicAdmin;
import io.flowhouse.testkit.TestDataDir;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Fills ClickHouse the way production does: real captures of testdata/ go to {@code flows.raw} as
 * the agent would put them there (one exporter per capture, receive time = capture time), a few
 * dead letters to {@code flows.rejected}, and the production topology of the job (decode, exporter
 * statistics, rollups, the ClickHouse sinks) runs over them on the test's MiniCluster, bounded at
 * the topics' end. Then the console's read-only user is installed on the test server.
 */
final class PipelineFixture {

    /** A capture and the exporter it is replayed as. */
    record Exporter(String file, String address, int port) {}

    static final List<Exporter> EXPORTERS =
            List.of(
                    new Exporter("netflow-v9-softflowd.pcap", "192.0.2.1", 2055),
                    new Exporter("ipfix-pmacct.pcap", "192.0.2.2", 4739),
                    new Exporter("netflow-v5-softflowd.pcap", "192.0.2.3", 2055),
                    new Exporter("ipfix-biflow-softflowd.pcap", "192.0.2.4", 4739));

    /** The exporter whose datagrams the agent refused: only in the rejected topic. */
    static final String REJECTED_EXPORTER = "192.0.2.9";

    static final int REJECTED = 3;

    static final String DB = "console_it";

    /**
     * A range (2 h) that holds every flow and every receive time. The exporters' clocks in the
     * captures say 2024-01-15 12:00..12:10 UTC; the captures were taken later: the datagrams are
     * received from 12:00:00 on (the captures' own spacing kept), as if the exporters' clocks were
     * right, so the raw table's receive times and the rollups' flow times fall in the same range.
     */
    static final long FROM = 1_705_316_400L; // 2024-01-15T11:00:00Z

    static final long TO = FROM + 7_200;

    /** When the first datagram of the captures is received. */
    static final long FIRST_RECEIVED_MILLIS = 1_705_320_000_000L; // 2024-01-15T12:00:00Z

    private PipelineFixture() {}

    static String[] jobArgs(String bootstrap, LocalClickHouse ch) {
        return new String[] {
            "--kafka.bootstrap-servers", bootstrap,
            "--kafka.topic.raw", "flows.raw.console",
            "--kafka.topic.rejected", "flows.rejected.console",
            "--kafka.topic.templates", "flows.templates.console",
            "--flowhouse.packets.topic", "packets.raw.console",
            "--kafka.group-id", "console-it",
            "--kafka.start", "earliest",
            "--kafka.stop", "latest",
            "--job.parallelism", "2",
            "--job.checkpoint-interval", "2 s",
            "--clickhouse.url", ch.httpUrl(),
            "--clickhouse.database", DB,
            "--clickhouse.user", ch.user(),
            "--clickhouse.batch-size", "20000",
            "--clickhouse.flush-interval", "500 ms",
            "--flowhouse.rollup.max-out-of-orderness", "1 h"
        };
    }

    /** Produces the captures and the dead letters, runs the job to the end of the topics. */
    static void fill(String bootstrap, LocalClickHouse ch) throws Exception {
        fill(bootstrap, ch, new String[0]);
    }

    /** The same, with these job arguments added (enrichment). */
    static void fill(String bootstrap, LocalClickHouse ch, String... extraArgs) throws Exception {
        fill(bootstrap, ch, List.of(), extraArgs);
    }

    /**
     * The same, with one more exporter's datagrams ({@code extra}: their receive times as they are,
     * in the range from {@link #FIRST_RECEIVED_MILLIS} on where the captures' are moved).
     */
    static void fill(
            String bootstrap, LocalClickHouse ch, List<RawDatagram> extra, String... extraArgs)
            throws Exception {
        List<ProducerRecord<byte[], byte[]>> raw = new ArrayList<>();
        List<List<RawDatagram>> captures = new ArrayList<>();
        long first = Long.MAX_VALUE;
        for (Exporter e : EXPORTERS) {
            List<RawDatagram> ds = datagrams(e);
            captures.add(ds);
            first = Math.min(first, ds.get(0).receivedMillis());
        }
        if (!extra.isEmpty()) {
            captures.add(extra);
        }
        for (List<RawDatagram> capture : captures) {
            List<RawDatagram> ds = new ArrayList<>();
            long shift = capture == extra ? 0 : FIRST_RECEIVED_MILLIS - first;
            for (RawDatagram d : capture) {
                ds.add(
                        RawDatagram.of(
                                d.exporter(),
                                d.receivedMillis() + shift,
                                "console-it",
                                d.payload()));
            }
            // The job emits an exporter's statistics of a minute when a datagram of a later
            // minute arrives (or a processing-time minute later, which a bounded run never
            // reaches): a datagram with no traffic, 90 s after the last one, closes the captures'
            // minute. (The last datagram again would count twice in the rollups, while the raw
            // table's row ids fold it.)
            RawDatagram last = ds.get(ds.size() - 1);
            ds.add(
                    RawDatagram.of(
                            last.exporter(),
                            last.receivedMillis() + 90_000,
                            "console-it",
                            noTraffic(last.payload())));
            for (RawDatagram d : ds) {
                raw.add(
                        new ProducerRecord<>(
                                "flows.raw.console",
                                null,
                                d.receivedMillis(),
                                d.partitionKey(),
                                RawDatagramCodec.encode(d)));
            }
        }
        for (int i = 0; i < REJECTED; i++) {
            RawDatagram d =
                    RawDatagram.of(
                            IpAddress.parse(REJECTED_EXPORTER),
                            2055,
                            (FROM + 4_000 + i) * 1000,
                            "console-it",
                            new byte[] {0, 7, 0, 1});
            raw.add(
                    new ProducerRecord<>(
                            "flows.rejected.console",
                            null,
                            d.receivedMillis(),
                            d.partitionKey(),
                            RawDatagramCodec.encodeRejected(
                                    new RejectedDatagram(d, "UNSUPPORTED_VERSION", "version 7"))));
        }
        PipelineSettings s =
                ReprocessJob.settings(
                        JobArgs.resolve(Map.of(), concat(jobArgs(bootstrap, ch), extraArgs)));
        // The records carry 2024 timestamps (the rejected topic is read by them): no retention.
        try (TopicAdmin admin = TopicAdmin.connect(bootstrap, new Properties())) {
            admin.createMissing(
                    List.of(
                            TopicAdmin.topic(
                                    s.rawTopic(),
                                    null,
                                    Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1")),
                            TopicAdmin.topic(
                                    s.rejectedTopic(),
                                    null,
                                    Map.of(TopicConfig.RETENTION_MS_CONFIG, "-1"))));
        }
        KafkaTopics.ensure(s);
        produce(bootstrap, raw);
        // Kept forever, also on servers with TTL: the rows are from 2024.
        JobTables tables =
                new JobTables(s.clickhouse().tables().withPassword(ch.password()).options(), 0, 0);
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(2));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        FlowPipelineJob.configure(env, s);
        FlowPipelineJob.build(
                env, PipelineConnectors.sources(s), PipelineConnectors.sinks(s, tables), s);
        env.execute("console-it");
    }

    private static String[] concat(String[] a, String[] b) {
        String[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** The console's user on the test server and a configuration that queries as it. */
    static ConsoleConfig console(LocalClickHouse ch, String bootstrap, Path work) throws Exception {
        String yaml =
                String.join(
                        "\n",
                        "listen.port: 0",
                        "clickhouse.url: " + ch.httpUrl(),
                        "clickhouse.database: " + DB,
                        "clickhouse.local-user: false",
                        "kafka.bootstrap-servers: " + bootstrap,
                        "kafka.rejected-topic: flows.rejected.console",
                        "");
        ConsoleConfig base =
                ConsoleKeys.config(
                        ConfigResolver.of(ConsoleKeys.SCHEMA).yaml(yaml, "test").resolve());
        String password =
                ConsoleUser.install(ch.directory(), work.resolve("password"), base.clickhouse());
        Path file = work.resolve("console.yaml");
        Files.writeString(file, yaml + "clickhouse.password: " + password + "\n");
        return ConsoleKeys.config(ConfigResolver.of(ConsoleKeys.SCHEMA).file(file).resolve());
    }

    /**
     * A message that adds no traffic: a v9 or IPFIX header alone; for v5, which needs a record, the
     * first record with no packets and no bytes under the next sequence number (a flow of nothing,
     * in the raw table and the rollups alike).
     */
    static byte[] noTraffic(byte[] message) {
        int version = ((message[0] & 0xff) << 8) | (message[1] & 0xff);
        byte[] out;
        switch (version) {
            case 5 -> {
                out = Arrays.copyOf(message, 24 + 48);
                out[2] = 0;
                out[3] = 1;
                Arrays.fill(out, 24 + 16, 24 + 24, (byte) 0); // dPkts, dOctets
                // The next flow sequence number: a new flow (row id), no sequence gap.
                int count = ((message[2] & 0xff) << 8) | (message[3] & 0xff);
                ByteBuffer.wrap(out).putInt(16, ByteBuffer.wrap(message).getInt(16) + count);
            }
            case 9 -> {
                out = Arrays.copyOf(message, 20);
                out[2] = 0; // count
                out[3] = 0;
            }
            case 10 -> {
                out = Arrays.copyOf(message, 16);
                out[2] = 0; // length
                out[3] = 16;
            }
            default -> throw new IllegalArgumentException("version " + version);
        }
        return out;
    }

    private static List<RawDatagram> datagrams(Exporter e) throws Exception {
        Path path = TestDataDir.file(e.file());
        UdpDatagramExtractor extractor = new UdpDatagramExtractor();
        List<RawDatagram> out = new ArrayList<>();
        try (PcapReader r = PcapReader.open(path)) {
            while (r.next()) {
                UdpDatagram u =
                        extractor.extract(r.packetLinkType(), r.packet(), r.timestampNanos());
                if (u == null) {
                    continue;
                }
                ByteBuffer p = u.payload();
                byte[] b = new byte[p.remaining()];
                p.duplicate().get(b);
                out.add(
                        RawDatagram.of(
                                IpAddress.parse(e.address()),
                                e.port(),
                                u.timestampNanos() / 1_000_000L,
                                "console-it",
                                b));
            }
        }
        return out;
    }

    private static void produce(String bootstrap, List<ProducerRecord<byte[], byte[]>> records)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        // One batch in flight and long timeouts: on a loaded machine a timed-out batch sent again
        // behind a later one made the idempotent producer loop on OutOfOrderSequence.
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (ProducerRecord<byte[], byte[]> r : records) {
                acks.add(producer.send(r));
            }
            producer.flush();
            for (Future<RecordMetadata> f : acks) {
                f.get(60, TimeUnit.SECONDS);
            }
        }
    }
}
