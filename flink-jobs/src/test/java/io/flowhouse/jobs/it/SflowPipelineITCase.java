// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.SflowAgentKey;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.TestDataDir;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The two real sFlow v5 captures, produced to {@code flows.raw} as the agent does (keyed by sFlow
 * agent and sub-agent), go through the production topology on a MiniCluster into a real ClickHouse:
 * {@code flows} and the rollups hold exactly testdata/README's goldens (one row per flow sample,
 * bytes the sampled frame length, the sample's rate beside them), and {@code exporter_stats} counts
 * every datagram with no sequence gap.
 */
class SflowPipelineITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    /**
     * 192.0.2.1 port 41000: pmacct sfprobe at 1:1; 192.0.2.2 port 41001: Open vSwitch at 1:10
     * (testdata/README; the rollups know the exporter by address only).
     */
    private static final String[] FILES = {"sflow-pmacct-rate1.pcap.gz", "sflow-ovs-rate10.pcap"};

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void bothCapturesLandWithTheGoldensTotals() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(), ch, "sflow", "--kafka.stop", "latest");
        List<RawDatagram> all = new ArrayList<>();
        for (int i = 0; i < FILES.length; i++) {
            all.addAll(
                    CaptureProducer.datagrams(
                            FILES[i], IpAddress.parse("192.0.2." + (1 + i)), 41_000 + i));
        }
        // The OVS capture once more from 192.0.2.3, with two consecutive datagrams lost on the
        // way: the sequence accounting must see them. Its counter samples are the same agent's
        // (same agent, interface, time and sequence) and collapse with the first copy's.
        List<RawDatagram> lossy =
                new ArrayList<>(
                        CaptureProducer.datagrams(FILES[1], IpAddress.parse("192.0.2.3"), 41_002));
        long lostSamples = flowSamples(lossy.remove(LOST_AT)) + flowSamples(lossy.remove(LOST_AT));
        assertThat(lostSamples).isPositive();
        all.addAll(lossy);
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(
                KAFKA.bootstrapServers(),
                s.rawTopic(),
                all,
                d -> SflowAgentKey.encodeFromHeader(ByteBuffer.wrap(d.payload())));

        PipelineHarness.environment(s, ch).execute("sflow ground truth");

        String db = "flowhouse_sflow";
        // Samples, unscaled packets and bytes (sampled frame lengths), scaled packets and bytes.
        assertThat(
                        ch.queryRows(
                                "SELECT exporter_port, count(), sum(packets), sum(bytes),"
                                        + " sum(packets * sampling_rate),"
                                        + " sum(bytes * sampling_rate), min(sampling_rate),"
                                        + " max(sampling_rate), uniqExact(row_id, row_id_hi),"
                                        + " min(version) FROM "
                                        + db
                                        + ".flows FINAL WHERE exporter_port < 41002"
                                        + " GROUP BY exporter_port ORDER BY exporter_port"))
                .containsExactly(
                        List.of(
                                "41000",
                                "42173",
                                "42173",
                                "31803431",
                                "42173",
                                "31803431",
                                "1",
                                "1",
                                "42173",
                                "105"),
                        List.of(
                                "41001",
                                "4215",
                                "4215",
                                "3231726",
                                "42150",
                                "32317260",
                                "10",
                                "10",
                                "4215",
                                "105"));
        // The rollups scale by the sampling rate: one direction of the interface buckets.
        for (String table : List.of("flows_1m", "flows_1h")) {
            assertThat(
                            ch.queryRows(
                                    "SELECT sum(flows), sum(packets), sum(bytes)"
                                            + " FROM "
                                            + db
                                            + "."
                                            + table
                                            + " FINAL WHERE kind = 'interface' AND direction = 0"
                                            + " GROUP BY exporter ORDER BY exporter LIMIT 2"))
                    .as(table)
                    .containsExactly(
                            List.of("42173", "42173", "31803431"),
                            List.of("4215", "42150", "32317260"));
        }
        // Every datagram counted once, under sFlow's version (105) and sub-agent id; every flow
        // sample's sequence follows its source's (testdata/README: 1..42,173 for pmacct), no drops;
        // the lossy copy: one gap of 2 datagrams and exactly their flow samples lost.
        assertThat(
                        ch.queryRows(
                                "SELECT exporter_port, observation_domain, version,"
                                        + " sum(datagrams), sum(records), sum(sequence_gaps),"
                                        + " sum(lost_datagrams), sum(sequence_resets),"
                                        + " sum(lost_samples), sum(sample_drops) FROM "
                                        + db
                                        + ".exporter_stats FINAL GROUP BY exporter_port,"
                                        + " observation_domain, version ORDER BY exporter_port"))
                .containsExactly(
                        List.of("41000", "1", "105", "5770", "42173", "0", "0", "0", "0", "0"),
                        List.of("41001", "0", "105", "588", "4215", "0", "0", "0", "0", "0"),
                        List.of(
                                "41002",
                                "0",
                                "105",
                                "586",
                                Long.toString(4215 - lostSamples),
                                "1",
                                "2",
                                "0",
                                Long.toString(lostSamples),
                                "0"));
        assertInterfaceCounters(ch, db);
        assertUtilisation(ch, db);
    }

    /** Every counter sample with interface counters, each value as sfacctd logged it. */
    private static void assertInterfaceCounters(LocalClickHouse ch, String db) throws Exception {
        List<List<String>> expected = new ArrayList<>();
        for (String file : FILES) {
            expected.addAll(sfacctdRows(file.substring(0, file.indexOf(".pcap"))));
        }
        assertThat(expected).hasSize(3 + 6);
        assertThat(
                        ch.queryRows(
                                "SELECT IPv6NumToString(agent), datagram_sequence,"
                                        + " source_id_index, sample_sequence, if_index, "
                                        + String.join(", ", COUNTER_COLUMNS)
                                        + " FROM "
                                        + db
                                        + ".interface_counters FINAL ORDER BY agent,"
                                        + " datagram_sequence, source_id_index"))
                .containsExactlyElementsOf(expected);
    }

    private static void assertUtilisation(LocalClickHouse ch, String db) throws Exception {
        // flink-jobs/README.md's utilisation query (its time range widened to the captures'):
        // OVS counts its input on ifIndex 1 and its output on 2, each equal to sfacctd's octets
        // over the seconds between the samples; pmacct's 3 samples came in one second (no rate).
        Map<String, Long> seconds = new LinkedHashMap<>();
        for (List<String> r :
                ch.queryRows(
                        "SELECT if_index, max(time) - min(time) FROM "
                                + db
                                + ".interface_counters WHERE has_generic = 1 GROUP BY agent,"
                                + " if_index ORDER BY agent, if_index")) {
            seconds.put(r.get(0), Long.parseLong(r.get(1)));
        }
        assertThat(seconds).containsEntry("3", 0L);
        List<List<String>> utilisation =
                ch.queryRows(
                        UTILISATION
                                .replace("flowhouse.", db + ".")
                                .replace("time >= now() - 3600", "1"));
        assertThat(utilisation)
                .extracting(r -> r.get(0) + " if " + r.get(1))
                .containsExactly("::ffff:192.0.2.2 if 1", "::ffff:192.0.2.2 if 2");
        List<List<String>> ovs = sfacctdRows("sflow-ovs-rate10");
        for (List<String> r : utilisation) {
            String ifIndex = r.get(1);
            List<List<String>> samples =
                    ovs.stream()
                            .filter(g -> g.get(4).equals(ifIndex) && g.get(5).equals("1"))
                            .toList();
            double speed = Double.parseDouble(samples.get(0).get(7));
            double[] pct = new double[2];
            for (int k = 0; k < 2; k++) {
                int column = k == 0 ? 10 : 17; // ifInOctets, ifOutOctets in sfacctdRows' order
                long min =
                        samples.stream()
                                .mapToLong(g -> Long.parseLong(g.get(column)))
                                .min()
                                .orElseThrow();
                long max =
                        samples.stream()
                                .mapToLong(g -> Long.parseLong(g.get(column)))
                                .max()
                                .orElseThrow();
                pct[k] = (max - min) * 8 * 100.0 / (seconds.get(ifIndex) * speed);
            }
            assertThat(Double.parseDouble(r.get(2)))
                    .as("in %% if %s", ifIndex)
                    .isCloseTo(pct[0], within(0.006));
            assertThat(Double.parseDouble(r.get(3)))
                    .as("out %% if %s", ifIndex)
                    .isCloseTo(pct[1], within(0.006));
            assertThat(pct[ifIndex.equals("1") ? 0 : 1])
                    .as("if %s busy", ifIndex)
                    .isGreaterThan(1.0);
        }
    }

    /** The query of flink-jobs/README.md, "interface_counters", as it is written there. */
    private static final String UTILISATION =
            """
            SELECT IPv6NumToString(agent) AS agent, if_index,
                   round((max(in_octets) - min(in_octets)) * 8 * 100
                         / ((max(time) - min(time)) * any(if_speed)), 2) AS in_pct,
                   round((max(out_octets) - min(out_octets)) * 8 * 100
                         / ((max(time) - min(time)) * any(if_speed)), 2) AS out_pct
            FROM flowhouse.interface_counters FINAL
            WHERE has_generic = 1 AND if_speed > 0 AND time >= now() - 3600
            GROUP BY agent, if_index
            HAVING max(time) > min(time)
            ORDER BY agent, if_index
            """;

    /** Where the lossy copy of the OVS capture loses two datagrams. */
    private static final int LOST_AT = 100;

    /** Flow samples in a datagram, by the codec alone. */
    private static long flowSamples(RawDatagram d) throws Exception {
        return new NetflowDecoder()
                .decode(
                        ByteBuffer.wrap(d.payload()),
                        new DecodeContext(d.exporter(), d.receivedMillis()),
                        new InMemoryTemplateCache())
                .sflow()
                .flowSamples();
    }

    /** The interface_counters columns after the sample's identity, in sfacctd's field order. */
    private static final List<String> COUNTER_COLUMNS =
            List.of(
                    "has_generic",
                    "if_type",
                    "if_speed",
                    "if_direction",
                    "if_status",
                    "in_octets",
                    "in_ucast_pkts",
                    "in_multicast_pkts",
                    "in_broadcast_pkts",
                    "in_discards",
                    "in_errors",
                    "in_unknown_protos",
                    "out_octets",
                    "out_ucast_pkts",
                    "out_multicast_pkts",
                    "out_broadcast_pkts",
                    "out_discards",
                    "out_errors",
                    "promiscuous_mode",
                    "has_ethernet",
                    "dot3_alignment_errors",
                    "dot3_fcs_errors",
                    "dot3_single_collision_frames",
                    "dot3_multiple_collision_frames",
                    "dot3_sqe_test_errors",
                    "dot3_deferred_transmissions",
                    "dot3_late_collisions",
                    "dot3_excessive_collisions",
                    "dot3_internal_mac_transmit_errors",
                    "dot3_carrier_sense_errors",
                    "dot3_frame_too_longs",
                    "dot3_internal_mac_receive_errors",
                    "dot3_symbol_errors");

    private static final String[] GENERIC = {
        "ifType",
        "ifSpeed",
        "ifDirection",
        "ifStatus",
        "ifInOctets",
        "ifInUcastPkts",
        "ifInMulticastPkts",
        "ifInBroadcastPkts",
        "ifInDiscards",
        "ifInErrors",
        "ifInUnknownProtos",
        "ifOutOctets",
        "ifOutUcastPkts",
        "ifOutMulticastPkts",
        "ifOutBroadcastPkts",
        "ifOutDiscards",
        "ifOutErrors",
        "ifPromiscuousMode"
    };

    private static final String[] ETHERNET = {
        "dot3StatsAlignmentErrors",
        "dot3StatsFCSErrors",
        "dot3StatsSingleCollisionFrames",
        "dot3StatsMultipleCollisionFrames",
        "dot3StatsSQETestErrors",
        "dot3StatsDeferredTransmissions",
        "dot3StatsLateCollisions",
        "dot3StatsExcessiveCollisions",
        "dot3StatsInternalMacTransmitErrors",
        "dot3StatsCarrierSenseErrors",
        "dot3StatsFrameTooLongs",
        "dot3StatsInternalMacReceiveErrors",
        "dot3StatsSymbolErrors"
    };

    /**
     * The rows sfacctd's counter log (golden/NAME.sfacctd-counters.jsonl.gz) gives: one per counter
     * sample with a generic or Ethernet record, in datagram order (samples with only other records,
     * OVS's 1004/1005/2203/2207, have no row).
     */
    private static List<List<String>> sfacctdRows(String name) throws Exception {
        ObjectMapper json = new ObjectMapper();
        Map<String, Map<String, JsonNode>> samples = new LinkedHashMap<>();
        Path golden = TestDataDir.file("golden/" + name + ".sfacctd-counters.jsonl.gz");
        try (BufferedReader in =
                new BufferedReader(
                        new InputStreamReader(
                                new GZIPInputStream(Files.newInputStream(golden)),
                                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                JsonNode n = json.readTree(line);
                String type = n.path("sf_cnt_type").asText();
                if (!type.equals("sflow_cnt_generic") && !type.equals("sflow_cnt_ethernet")) {
                    continue;
                }
                String key =
                        n.get("peer_ip_src").asText()
                                + "/"
                                + n.get("sflow_seq").asLong()
                                + "/"
                                + n.get("source_id_index").asLong()
                                + "/"
                                + n.get("sflow_cnt_seq").asLong();
                samples.computeIfAbsent(key, k -> new LinkedHashMap<>()).put(type, n);
            }
        }
        List<List<String>> rows = new ArrayList<>();
        for (Map<String, JsonNode> s : samples.values()) {
            JsonNode generic = s.get("sflow_cnt_generic");
            JsonNode ethernet = s.get("sflow_cnt_ethernet");
            JsonNode any = generic != null ? generic : ethernet;
            List<String> row = new ArrayList<>();
            row.add("::ffff:" + any.get("peer_ip_src").asText());
            row.add(any.get("sflow_seq").asText());
            row.add(any.get("source_id_index").asText());
            row.add(any.get("sflow_cnt_seq").asText());
            row.add(generic != null ? generic.get("ifIndex").asText() : row.get(2));
            row.add(generic != null ? "1" : "0");
            for (String f : GENERIC) {
                row.add(generic != null ? generic.get(f).asText() : "0");
            }
            row.add(ethernet != null ? "1" : "0");
            for (String f : ETHERNET) {
                row.add(ethernet != null ? ethernet.get(f).asText() : "0");
            }
            rows.add(row);
        }
        return rows;
    }
}
