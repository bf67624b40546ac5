// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.SflowAgentKey;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With {@code packets.sflow-samples} on, the two real sFlow captures go through the production
 * topology with their flow samples aged into flows: fewer rows than samples (at least one per
 * distinct sampled flow), and the totals, unscaled and scaled by the sampling rate, exactly
 * testdata/README's goldens (pmacct 1:1: 42,173 packets, 31,803,431 bytes; OVS 1:10: 42,150
 * packets, 32,317,260 bytes), in {@code flows} and in the rollups; at a bound of 10 flows per
 * instance ({@code packets.sflow-samples-max-active-flows}) the same totals, with the flows beyond
 * it cut early (end reason 5).
 */
class SflowSampleAgeingITCase {

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

    private static final String[] FILES = {"sflow-pmacct-rate1.pcap.gz", "sflow-ovs-rate10.pcap"};

    /** The rows per exporter port of one run, and the distinct sampled flows of each capture. */
    private record Run(List<List<String>> rows, long[] distinct) {}

    private static Run run(String suffix, String... extra) throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        List<String> args = new ArrayList<>(List.of("--kafka.stop", "latest"));
        args.addAll(List.of("--packets.sflow-samples", "true"));
        args.addAll(List.of(extra));
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(), ch, suffix, args.toArray(String[]::new));
        assertThat(s.ageing().sflowSamples()).isTrue();
        List<RawDatagram> all = new ArrayList<>();
        long[] distinct = new long[FILES.length];
        for (int i = 0; i < FILES.length; i++) {
            List<RawDatagram> d =
                    CaptureProducer.datagrams(
                            FILES[i], IpAddress.parse("192.0.2." + (1 + i)), 41_000 + i);
            distinct[i] = distinctSampledFlows(d);
            all.addAll(d);
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(
                KAFKA.bootstrapServers(),
                s.rawTopic(),
                all,
                d -> SflowAgentKey.encodeFromHeader(ByteBuffer.wrap(d.payload())));

        PipelineHarness.environment(s, ch).execute("sflow samples aged into flows");

        String db = "flowhouse_" + suffix;
        List<List<String>> rows =
                ch.queryRows(
                        "SELECT exporter_port, count(), sum(packets), sum(bytes),"
                                + " sum(packets * sampling_rate), sum(bytes * sampling_rate),"
                                + " uniqExact(row_id, row_id_hi), max(packets),"
                                + " countIf(flow_end > flow_start), countIf(flow_end_reason = 5)"
                                + " FROM "
                                + db
                                + ".flows FINAL GROUP BY exporter_port ORDER BY exporter_port");
        for (String table : List.of("flows_1m", "flows_1h")) {
            assertThat(
                            ch.queryRows(
                                    "SELECT sum(packets), sum(bytes) FROM "
                                            + db
                                            + "."
                                            + table
                                            + " FINAL WHERE kind = 'interface' AND direction = 0"
                                            + " GROUP BY exporter ORDER BY exporter"))
                    .as(table)
                    .containsExactly(List.of("42173", "31803431"), List.of("42150", "32317260"));
        }
        return new Run(rows, distinct);
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void samplesAgeIntoFlowsWithTheGoldensTotals() throws Exception {
        Run run = run("sflowage");
        List<List<String>> rows = run.rows();
        long[] distinct = run.distinct();
        assertThat(rows)
                .extracting(r -> r.subList(2, 6))
                .containsExactly(
                        List.of("42173", "31803431", "42173", "31803431"),
                        List.of("4215", "3231726", "42150", "32317260"));
        long[] samples = {42_173, 4_215};
        for (int i = 0; i < FILES.length; i++) {
            List<String> r = rows.get(i);
            long flows = Long.parseLong(r.get(1));
            assertThat(flows).as(FILES[i]).isLessThan(samples[i]);
            assertThat(flows).as(FILES[i]).isGreaterThanOrEqualTo(distinct[i]);
            assertThat(r.get(6)).as("one id per row").isEqualTo(r.get(1));
            assertThat(Long.parseLong(r.get(7))).as("a flow of several samples").isGreaterThan(1);
            assertThat(Long.parseLong(r.get(8))).as("flows spanning time").isPositive();
            assertThat(r.get(9)).as("none cut below the default bound").isEqualTo("0");
        }
        System.out.printf(
                "sflow samples aged: pmacct %s rows (%d distinct sampled flows) for 42173 samples,"
                        + " OVS %s rows (%d) for 4215 samples%n",
                rows.get(0).get(1), distinct[0], rows.get(1).get(1), distinct[1]);
    }

    /**
     * At the memory bound (10 flows per instance) samples of further flows are written at once as
     * flows of their own, with end reason 5: more rows, every sample and byte still there.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void atTheBoundFlowsAreCutEarlyAndNothingIsLost() throws Exception {
        Run run = run("sflowcap", "--packets.sflow-samples-max-active-flows", "10");
        List<List<String>> rows = run.rows();
        assertThat(rows)
                .extracting(r -> r.subList(2, 6))
                .containsExactly(
                        List.of("42173", "31803431", "42173", "31803431"),
                        List.of("4215", "3231726", "42150", "32317260"));
        for (int i = 0; i < FILES.length; i++) {
            List<String> r = rows.get(i);
            assertThat(r.get(6)).as("one id per row").isEqualTo(r.get(1));
            assertThat(Long.parseLong(r.get(9))).as(FILES[i] + " cut at the bound").isPositive();
            assertThat(Long.parseLong(r.get(1))).isGreaterThanOrEqualTo(run.distinct()[i]);
        }
        System.out.printf(
                "sflow samples at a bound of 10: pmacct %s rows (%s cut), OVS %s rows (%s cut)%n",
                rows.get(0).get(1), rows.get(0).get(9), rows.get(1).get(1), rows.get(1).get(9));
    }

    /** Sampled flows by the codec alone: agent, rate, interfaces, VLAN and 5-tuple. */
    private static long distinctSampledFlows(List<RawDatagram> datagrams) throws Exception {
        NetflowDecoder decoder = new NetflowDecoder();
        Set<String> keys = new HashSet<>();
        for (RawDatagram d : datagrams) {
            for (FlowRecord f :
                    decoder.decode(
                                    ByteBuffer.wrap(d.payload()),
                                    new DecodeContext(d.exporter(), d.receivedMillis()),
                                    new InMemoryTemplateCache())
                            .records()) {
                keys.add(
                        f.sflow().agentAddress()
                                + "|"
                                + f.samplingRate()
                                + "|"
                                + f.inputInterface()
                                + "|"
                                + f.outputInterface()
                                + "|"
                                + f.vlanId()
                                + "|"
                                + f.srcAddr()
                                + "|"
                                + f.dstAddr()
                                + "|"
                                + f.srcPort()
                                + "|"
                                + f.dstPort()
                                + "|"
                                + f.protocol());
            }
        }
        return keys.size();
    }
}
