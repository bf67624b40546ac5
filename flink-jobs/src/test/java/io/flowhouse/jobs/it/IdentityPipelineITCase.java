// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static io.flowhouse.jobs.it.StampedExports.flow;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.reprocess.ReprocessArgs;
import io.flowhouse.jobs.reprocess.ReprocessJob;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every table counts each flow once, through what used to break the count, all inside one 5-minute
 * bucket: an exporter that restarts on the same source port (its sequence numbers, record positions
 * and flow keys start over), a spool re-send of datagrams already in Kafka, IPv4 and IPv6 sets in
 * one message with the IPv6 template coming late, and an exporter whose clock says 2100 (and 1999).
 * The job runs through Kafka into ClickHouse (bounded at the latest offsets, so every window
 * closes), then {@code job reprocess} runs over the same range in BATCH mode: raw flows, {@code
 * flows_1m}, {@code flows_1h} (buckets and top talkers) and {@code exporter_stats} agree with what
 * was sent, before any merge too (count() = distinct row ids), and the reprocess writes the same
 * rows.
 */
class IdentityPipelineITCase {

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

    private static final long T0 = 1_705_320_000_000L; // 2024-01-15 12:00:00 UTC
    private static final long YEAR_2100 = 4_102_444_800_000L;
    private static final long YEAR_1999 = 915_148_800_000L;

    private static final ExporterKey PMACCT = new ExporterKey(IpAddress.parse("192.0.2.1"), 4739);
    private static final ExporterKey ROUTER = new ExporterKey(IpAddress.parse("192.0.2.2"), 2055);
    private static final ExporterKey SKEWED = new ExporterKey(IpAddress.parse("192.0.2.3"), 4739);

    /** What was sent, per exporter: flows, packets, bytes. */
    private final Map<String, long[]> sent = new TreeMap<>();

    private void count(ExporterKey e, List<FlowRecord> flows) {
        long[] t = sent.computeIfAbsent(e.address().toString(), k -> new long[3]);
        for (FlowRecord f : flows) {
            t[0]++;
            t[1] += f.packets();
            t[2] += f.bytes();
        }
    }

    private List<RawDatagram> exports() {
        StampedExports agent = new StampedExports("it-agent", 1);
        List<RawDatagram> out = new ArrayList<>();
        // pmacct-style IPFIX: an IPv6 and an IPv4 set in every message. The first message knows
        // only the IPv4 template (its IPv6 set waits for the second). After 10 messages the
        // exporter restarts on the same port: sequence numbers, positions and flows start over.
        for (int incarnation = 0; incarnation < 2; incarnation++) {
            IpfixEncoder enc = new IpfixEncoder();
            for (int i = 0; i < 10; i++) {
                long received = T0 + 50_000L * incarnation + 5_000L * i;
                List<FlowRecord> v6 = new ArrayList<>();
                List<FlowRecord> v4 = new ArrayList<>();
                for (int k = 0; k < 2; k++) {
                    v6.add(
                            flow(
                                    "2001:db8::" + (k + 1),
                                    "2001:db8:1::1",
                                    received - 2_000,
                                    i + 1,
                                    100 * (i + 1) + k));
                }
                for (int k = 0; k < 3; k++) {
                    v4.add(
                            flow(
                                    "10.1.0." + (k + 1),
                                    "10.2.0.1",
                                    received - 2_000,
                                    i + 2,
                                    200 * (i + 1) + k));
                }
                count(PMACCT, v6);
                count(PMACCT, v4);
                byte[] p = StampedExports.ipfix(enc, 1, received, true, i > 0, v6, v4);
                out.add(agent.stamp(PMACCT, received, p));
            }
        }
        // NetFlow v5; the agent's spool sends datagrams 8 to 12 again after 15 (their
        // acknowledgements were lost): the same bytes, the same stamps.
        List<RawDatagram> v5 = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long received = T0 + 5_000L * i;
            List<FlowRecord> flows = new ArrayList<>();
            for (int k = 0; k < 5; k++) {
                flows.add(
                        flow(
                                "10.3.0." + (k + 1),
                                "10.4.0.1",
                                received - 1_500,
                                k + 1,
                                60 * (k + 1) + i));
            }
            count(ROUTER, flows);
            v5.add(agent.stamp(ROUTER, received, StampedExports.v5(5L * i, received, flows)));
        }
        out.addAll(v5.subList(0, 16));
        out.addAll(v5.subList(8, 13));
        out.addAll(v5.subList(16, 20));
        // An exporter whose clock is off: one message's flows end in 2100 and in 1999.
        IpfixEncoder skewed = new IpfixEncoder();
        for (int i = 0; i < 20; i++) {
            long received = T0 + 5_000L * i;
            long end = i == 3 ? YEAR_2100 : i == 4 ? YEAR_1999 : received - 1_000;
            List<FlowRecord> v4 =
                    List.of(
                            flow("10.5.0.1", "10.6.0.1", end, 3, 300 + i),
                            flow("10.5.0.2", "10.6.0.1", end, 4, 400 + i));
            count(SKEWED, v4);
            out.add(
                    agent.stamp(
                            SKEWED,
                            received,
                            StampedExports.ipfix(skewed, 7, received, true, false, List.of(), v4)));
        }
        return out;
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void everyTableCountsEachFlowOnce() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(), ch, "idp", "--kafka.stop", "latest");
        List<RawDatagram> datagrams = exports();
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), datagrams);
        PipelineHarness.environment(s, ch).execute("identity");

        String db = "flowhouse_idp";
        assertEveryTable(ch, db);
        // The clock: its flows moved into the window around their receive time (a flow of 2100
        // received at 12:00:15 ends at 12:05:15), the exporter's times kept beside them.
        assertThat(
                        ch.queryRows(
                                "SELECT toUnixTimestamp(exported_flow_end),"
                                        + " toUnixTimestamp(flow_end), count() FROM "
                                        + db
                                        + ".flows FINAL WHERE exported_flow_end != 0"
                                        + " GROUP BY exported_flow_end, flow_end"
                                        + " ORDER BY exported_flow_end"))
                .containsExactly(
                        List.of(
                                Long.toString(YEAR_1999 / 1000),
                                Long.toString((T0 + 20_000 - 300_000) / 1000),
                                "2"),
                        List.of(
                                Long.toString(YEAR_2100 / 1000),
                                Long.toString((T0 + 15_000 + 300_000) / 1000),
                                "2"));
        String streamedIds = rowIds(ch, db);

        // The same range again, in BATCH mode, into another database: the same rows.
        String[] reprocess = {
            "--from",
            Long.toString(T0 - 60_000),
            "--to",
            Long.toString(T0 + 3_600_000),
            "--target-database",
            "idp_batch"
        };
        List<String> all = new ArrayList<>(List.of(reprocess));
        all.addAll(settingsArgs(ch));
        ReprocessArgs a = ReprocessArgs.parse(all.toArray(String[]::new));
        PipelineSettings rs = ReprocessJob.settings(a.job());
        StreamExecutionEnvironment env = PipelineHarness.environment(rs);
        ReprocessJob.build(env, rs, a, PipelineHarness.tables(rs, ch));
        env.execute("identity reprocess");
        assertEveryTable(ch, "idp_batch");
        assertThat(rowIds(ch, "idp_batch")).isEqualTo(streamedIds);
    }

    private static List<String> settingsArgs(LocalClickHouse ch) {
        return List.of(
                "--kafka.bootstrap-servers", KAFKA.bootstrapServers(),
                "--kafka.topic.raw", "flows.raw.idp",
                "--kafka.topic.rejected", "flows.rejected.idp",
                "--kafka.topic.templates", "flows.templates.idp",
                "--kafka.group-id", "itcase-idp-batch",
                "--job.parallelism", "2",
                "--clickhouse.url", ch.httpUrl(),
                "--clickhouse.user", ch.user());
    }

    /** Row ids and their count in the raw table, under FINAL. */
    private static String rowIds(LocalClickHouse ch, String db) {
        return String.join(
                "\t",
                ch.queryRows(
                                "SELECT count(), groupBitXor(row_id), groupBitXor(row_id_hi) FROM "
                                        + db
                                        + ".flows FINAL")
                        .get(0));
    }

    private void assertEveryTable(LocalClickHouse ch, String db) {
        // Raw: per exporter, what was sent; before any merge too, and one row per row id.
        List<String> expected = new ArrayList<>();
        for (Map.Entry<String, long[]> e : sent.entrySet()) {
            long[] t = e.getValue();
            expected.add(t[0] + "\t" + t[1] + "\t" + t[2]);
        }
        assertThat(
                        totals(
                                ch,
                                "SELECT count(), sum(packets), sum(bytes) FROM "
                                        + db
                                        + ".flows FINAL GROUP BY exporter ORDER BY exporter"))
                .as("flows FINAL")
                .isEqualTo(expected);
        assertThat(
                        totals(
                                ch,
                                "SELECT count(), sum(packets), sum(bytes) FROM "
                                        + db
                                        + ".flows GROUP BY exporter ORDER BY exporter"))
                .as("flows before a merge")
                .isEqualTo(expected);
        assertThat(
                        totals(
                                ch,
                                "SELECT count() = uniqExact(row_id, row_id_hi), uniqExact(row_id, row_id_hi) FROM "
                                        + db
                                        + ".flows"))
                .containsExactly("1\t" + sent.values().stream().mapToLong(t -> t[0]).sum());
        // Rollups: one direction of the interface buckets per exporter, at 1 min and 1 h.
        for (String table : List.of("flows_1m", "flows_1h")) {
            assertThat(
                            totals(
                                    ch,
                                    "SELECT sum(flows), sum(packets), sum(bytes) FROM "
                                            + db
                                            + "."
                                            + table
                                            + " FINAL WHERE kind = 'interface' AND direction = 0 GROUP BY exporter ORDER BY exporter"))
                    .as(table)
                    .isEqualTo(expected);
            // Top talkers: fewer sources than ranks, so they add up to the buckets, per window.
            assertThat(
                            totals(
                                    ch,
                                    "SELECT exporter, window_start, sum(bytes) FROM "
                                            + db
                                            + "."
                                            + table
                                            + " FINAL WHERE kind = 'top_talker' GROUP BY exporter, window_start ORDER BY exporter, window_start"))
                    .as(table + " top talkers")
                    .isEqualTo(
                            totals(
                                    ch,
                                    "SELECT exporter, window_start, sum(bytes) FROM "
                                            + db
                                            + "."
                                            + table
                                            + " FINAL WHERE kind = 'interface' AND direction = 0 GROUP BY exporter, window_start ORDER BY exporter, window_start"));
        }
        // Exporter statistics: datagrams once each, the re-sends counted apart, the restart a
        // reset, and no gap anywhere.
        assertThat(
                        totals(
                                ch,
                                "SELECT exporter_port, observation_domain, version, sum(datagrams), sum(duplicate_datagrams), sum(sequence_resets), sum(sequence_gaps), sum(records) FROM "
                                        + db
                                        + ".exporter_stats FINAL GROUP BY exporter, exporter_port, observation_domain, version ORDER BY exporter"))
                .containsExactly(
                        "4739\t1\t10\t20\t0\t1\t0\t100",
                        "2055\t0\t5\t20\t5\t0\t0\t100",
                        "4739\t7\t10\t20\t0\t0\t0\t40");
    }

    private static List<String> totals(LocalClickHouse ch, String sql) {
        return ch.queryRows(sql).stream().map(r -> String.join("\t", r)).toList();
    }
}
