// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.RawRecords;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.assertj.core.api.Assertions;

/** Datagrams with known totals, topic read-back and the fault table, for the fault suite. */
final class FaultSupport {

    /** Where every fault test appends its row; {@code ./flowhouse test --faults} prints it. */
    static final Path TABLE = Path.of("target", "faults-table.txt");

    private FaultSupport() {}

    /**
     * A NetFlow v5 datagram with one flow whose sequence number is {@code seq}, {@code seq % 7 + 1}
     * packets and {@code 100 * packets + seq % 13} bytes: the sender can sum what it sent and the
     * reader can tell every datagram apart.
     */
    static byte[] v5(int seq) {
        return v5(seq, 1);
    }

    /** As {@link #v5(int)} with {@code flows} identical flows (1..30) in the datagram. */
    static byte[] v5(int seq, int flows) {
        ByteBuffer b = ByteBuffer.allocate(24 + 48 * flows);
        b.putShort((short) 5).putShort((short) flows).putInt(600_000).putInt(1_700_000_000);
        b.putInt(0).putInt(seq).put((byte) 0).put((byte) 0).putShort((short) 0);
        for (int f = 0; f < flows; f++) {
            b.putInt(0x0a000001).putInt(0x0a000002 + (seq & 0xffff)).putInt(0);
            b.putShort((short) 1).putShort((short) 2);
            b.putInt(packets(seq)).putInt(bytes(seq));
            b.putInt(590_000).putInt(599_000);
            b.putShort((short) (1024 + seq % 60_000)).putShort((short) (443 + f));
            b.put((byte) 0).put((byte) 0x18).put((byte) 6).put((byte) 0);
            b.putShort((short) 0).putShort((short) 0).put((byte) 24).put((byte) 24);
            b.putShort((short) 0);
        }
        return b.array();
    }

    /** The flow count of a payload built by {@link #v5(int, int)}. */
    static int flowsOf(byte[] payload) {
        return ByteBuffer.wrap(payload).getShort(2);
    }

    static int packets(int seq) {
        return seq % 7 + 1;
    }

    static int bytes(int seq) {
        return 100 * packets(seq) + seq % 13;
    }

    /** The v5 sequence number of a payload built by {@link #v5(int)}. */
    static int seqOf(byte[] payload) {
        return ByteBuffer.wrap(payload).getInt(16);
    }

    static int freeTcpPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            return s.getLocalPort();
        }
    }

    /** Totals of v5 datagrams read back from the raw topic, with duplicates counted apart. */
    record Stored(
            int distinct,
            int duplicates,
            long flows,
            long packets,
            long bytes,
            Map<Integer, Integer> seen) {

        static Stored of(List<ConsumerRecord<byte[], byte[]>> records) {
            Map<Integer, Integer> seen = new HashMap<>();
            long flows = 0;
            long packets = 0;
            long bytes = 0;
            int dups = 0;
            for (RawDatagram d : RawRecords.datagrams(records)) {
                int seq = seqOf(d.payload());
                if (seen.merge(seq, 1, Integer::sum) > 1) {
                    dups++;
                } else {
                    int n = flowsOf(d.payload());
                    flows += n;
                    packets += (long) n * FaultSupport.packets(seq);
                    bytes += (long) n * FaultSupport.bytes(seq);
                }
            }
            return new Stored(seen.size(), dups, flows, packets, bytes, seen);
        }
    }

    /** Appends one row to {@link #TABLE} (header first when the file is new) and prints it. */
    static synchronized void row(
            String fault,
            long sent,
            long stored,
            long lostExpected,
            long lostUnexpected,
            long duplicates,
            Duration recovery,
            String where) {
        try {
            Files.createDirectories(TABLE.getParent());
            if (!Files.exists(TABLE)) {
                Files.writeString(
                        TABLE,
                        String.format(
                                Locale.ROOT,
                                "%-44s %8s %8s %10s %12s %6s %10s  %s%n",
                                "fault",
                                "sent",
                                "stored",
                                "lost(exp)",
                                "lost(unexp)",
                                "dups",
                                "recovery",
                                "checked in"),
                        StandardCharsets.UTF_8);
            }
            String line =
                    String.format(
                            Locale.ROOT,
                            "%-44s %8d %8d %10d %12d %6d %9.1fs  %s%n",
                            fault,
                            sent,
                            stored,
                            lostExpected,
                            lostUnexpected,
                            duplicates,
                            recovery.toMillis() / 1000.0,
                            where);
            Files.writeString(TABLE, line, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            System.out.print("FAULT " + line);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * The production graph ({@link FlowPipelineJob#build}) on a local environment made from {@code
     * c}, its topics created and its tables written to {@code ch}: what each row runs.
     */
    static StreamExecutionEnvironment productionJob(
            Configuration c, PipelineSettings s, LocalClickHouse ch) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        FlowPipelineJob.configure(env, s);
        KafkaTopics.ensure(s);
        JobTables o = s.clickhouse().tables().withPassword(ch.password());
        FlowPipelineJob.build(
                env, PipelineConnectors.sources(s), PipelineConnectors.sinks(s, o), s);
        return env;
    }

    /**
     * The production job with the restarts of the rows: 40 attempts 2 s apart (enough to ride out a
     * ClickHouse or broker outage), then the job and the test fail.
     */
    static StreamExecutionEnvironment restartingJob(PipelineSettings s, LocalClickHouse ch)
            throws Exception {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 40);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(2));
        return productionJob(c, s, ch);
    }

    /**
     * The job settings of the MiniCluster rows: the default topic names, group {@code db}, from the
     * earliest offsets, parallelism 2, checkpoints every second, partitions idle after 5 s, windows
     * closed as soon as the receive time passes them, ClickHouse database {@code db}; {@code extra}
     * arguments after these (a later one wins).
     */
    static PipelineSettings jobSettings(
            String bootstrap, LocalClickHouse ch, String db, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers", bootstrap,
                                "--kafka.topic.raw", "flows.raw",
                                "--kafka.topic.rejected", "flows.rejected",
                                "--kafka.topic.templates", "flows.templates",
                                "--kafka.group-id", db,
                                "--kafka.start", "earliest",
                                "--job.parallelism", "2",
                                "--job.checkpoint-interval", "1 s",
                                "--decode.idleness", "5 s",
                                // Windows close as soon as the receive time passes them (the rows
                                // wait for them).
                                "--flowhouse.rollup.max-out-of-orderness", "0 s",
                                "--clickhouse.url", ch.httpUrl(),
                                "--clickhouse.database", db,
                                "--clickhouse.user", ch.user(),
                                "--clickhouse.batch-size", "5000",
                                "--clickhouse.flush-interval", "500 ms",
                                "--clickhouse.max-retries", "30"));
        args.addAll(List.of(extra));
        return PipelineSettings.from(
                JobArgs.resolve(Map.of(), args.toArray(String[]::new)), Map.of());
    }

    /**
     * An agent's configuration: one UDP listener, the broker, its spool in {@code home} and its
     * metrics endpoint; {@code kafka} adds lines to the kafka section ({@code key: value}).
     *
     * @return the file written, {@code home/agent.yaml}
     */
    static Path agentYaml(
            Path home,
            String id,
            String listen,
            String bootstrap,
            String metricsHost,
            int metricsPort,
            String... kafka)
            throws IOException {
        List<String> lines = new ArrayList<>();
        lines.addAll(
                List.of(
                        "agent:",
                        "  id: " + id,
                        "udp:",
                        "  listen: ['" + listen + "']",
                        "  sockets-per-listener: 1",
                        "kafka:",
                        "  bootstrap-servers: '" + bootstrap + "'"));
        for (String k : kafka) {
            lines.add("  " + k);
        }
        lines.addAll(
                List.of(
                        "spool:",
                        "  directory: '" + home.resolve("spool") + "'",
                        "metrics:",
                        "  host: " + metricsHost,
                        "  port: " + metricsPort,
                        ""));
        Files.createDirectories(home);
        Path yaml = home.resolve("agent.yaml");
        Files.writeString(yaml, String.join("\n", lines), StandardCharsets.UTF_8);
        return yaml;
    }

    /**
     * Stops the job with a drained savepoint into {@code dir}: the final watermark closes every
     * window (the hour of the traffic, up to an hour away on the receive clock) and the writers
     * flush before the job ends. The job's end is read from its result, not its status: a local
     * job's cluster shuts down with it, after which status requests throw.
     */
    static String drainedStop(JobClient job, Path dir) throws Exception {
        return drainedStop(job, dir, Duration.ofSeconds(180));
    }

    /** {@link #drainedStop(JobClient, Path)} with the time the savepoint may take. */
    static String drainedStop(JobClient job, Path dir, Duration savepointTimeout) throws Exception {
        String savepoint =
                job.stopWithSavepoint(
                                true,
                                dir.toAbsolutePath().toUri().toString(),
                                SavepointFormatType.CANONICAL)
                        .get(savepointTimeout.toMillis(), TimeUnit.MILLISECONDS);
        // Completes only when the job has ended; throws unless it FINISHED.
        Assertions.assertThat(job.getJobExecutionResult().get(60, TimeUnit.SECONDS))
                .as("job ended by the drained stop to " + savepoint)
                .isNotNull();
        return savepoint;
    }

    /**
     * Cancels the job unless it ended. A local job's cluster shuts down with the job (a drained
     * stop, a failure), so whether it ended is read from its result, which outlives the cluster.
     */
    static void cancelIfRunning(JobClient job) throws Exception {
        if (job == null || job.getJobExecutionResult().isDone()) {
            return;
        }
        try {
            job.cancel().get(60, TimeUnit.SECONDS);
        } catch (IllegalStateException | ExecutionException e) {
            if (!job.getJobExecutionResult().isDone()) {
                throw e;
            }
            // It ended meanwhile: nothing left to cancel.
        }
    }

    /**
     * After a drained stop: {@code flows_1h} (interface rows, one direction) holds per exporter
     * exactly the flows, packets and bytes of {@code flows FINAL}, and a bucket for every hour in
     * which a raw flow ends. Per exporter, not per hour: a flow's packets are split over the hours
     * it spans, its count goes to the hour of its end.
     *
     * @param query the rows of a query (the row's ClickHouse)
     */
    static void assertHourExact(Function<String, List<List<String>>> query, String db) {
        String raw =
                "SELECT exporter, count(), sum(packets), sum(bytes) FROM "
                        + db
                        + ".flows FINAL GROUP BY exporter ORDER BY exporter";
        String hour =
                "SELECT exporter, sum(flows), sum(packets), sum(bytes) FROM "
                        + db
                        + ".flows_1h FINAL WHERE kind = 'interface' AND direction = 0"
                        + " GROUP BY exporter ORDER BY exporter";
        List<List<String>> expected = query.apply(raw);
        Assertions.assertThat(expected).as("flows FINAL per exporter").isNotEmpty();
        Assertions.assertThat(query.apply(hour))
                .as("flows_1h per exporter after the drained stop")
                .isEqualTo(expected);
        String hours =
                "SELECT DISTINCT toStartOfHour(flow_end) AS h FROM "
                        + db
                        + ".flows FINAL ORDER BY h";
        String written =
                "SELECT DISTINCT window_start AS h FROM "
                        + db
                        + ".flows_1h FINAL WHERE kind = 'interface' ORDER BY h";
        Assertions.assertThat(query.apply(written))
                .as("flows_1h hours")
                .containsAll(query.apply(hours));
    }

    /**
     * Polls until the query's single number reaches {@code atLeast}; gives up after {@code within}.
     */
    static void awaitScalar(LocalClickHouse ch, String sql, long atLeast, Duration within)
            throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                String v = ch.queryScalar(sql);
                if (!v.isEmpty() && Long.parseLong(v) >= atLeast) {
                    return;
                }
            } catch (RuntimeException e) {
                // Table not there yet: poll again.
            }
            Thread.sleep(500);
        }
    }

    /**
     * Waits until the job's consumer group has committed {@code topic} up to the end offsets it has
     * now, at most {@code within}; returns how far it still is behind (0: caught up). The job
     * commits its offsets when a checkpoint completes, and its ClickHouse writers flush before the
     * barrier passes them, so 0 means every record up to here is in {@code flows} and the rollups'
     * and statistics' state: what is missing after that is lost, not late.
     */
    static long awaitConsumed(Admin admin, String group, String topic, Duration within)
            throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (var p :
                admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get()
                        .get(topic)
                        .partitions()) {
            latest.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> end = new HashMap<>();
        admin.listOffsets(latest).all().get().forEach((tp, o) -> end.put(tp, o.offset()));
        long deadline = System.nanoTime() + within.toNanos();
        long behind;
        while (true) {
            Map<TopicPartition, OffsetAndMetadata> done =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            behind = 0;
            for (TopicPartition tp : end.keySet()) {
                OffsetAndMetadata c = done.get(tp);
                behind += Math.max(0, end.get(tp) - (c == null ? 0 : c.offset()));
            }
            if (behind == 0 || System.nanoTime() > deadline) {
                return behind;
            }
            Thread.sleep(500);
        }
    }
}
