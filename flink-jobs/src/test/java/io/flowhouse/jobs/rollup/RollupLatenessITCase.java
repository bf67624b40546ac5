// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.FlowTimestamps;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Late flows on a MiniCluster: a flow within the allowed lateness fires its bucket again with the
 * complete new counts and a higher version (the row that replaces the first in ClickHouse); a flow
 * beyond it goes to the side output and is counted, and its bucket is never written.
 */
class RollupLatenessITCase {

    @RegisterExtension static final MiniClusterExtension FLINK = new MiniClusterExtension();

    private static final long T0 = 1_705_320_000_000L; // 12:00:00
    private static final long MINUTE = 60_000L;
    private static final int LATE_MARK = 99;

    private static FlowRecord flow(long end, long bytes) {
        return FlowRecord.builder()
                .version(10)
                .exporterAddress(IpAddress.parse("192.0.2.10"))
                .flowStartMillis(end)
                .flowEndMillis(end)
                .timeReceivedMillis(end)
                .srcAddr(IpAddress.parse("198.51.100.1"))
                .dstAddr(IpAddress.parse("203.0.113.7"))
                .protocol(17)
                .dstPort(53)
                .inputInterface(1)
                .outputInterface(2)
                .bytes(bytes)
                .packets(1)
                .build();
    }

    @Test
    void lateWithinTheAllowanceUpdatesTheBucketAndLaterGoesToTheSideOutput() throws Exception {
        RollupSettings s = RollupStreams.settings(Duration.ofMinutes(2), Duration.ofMinutes(1));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<FlowRecord> flows =
                env.fromData(
                                List.of(
                                        flow(T0 + 4 * MINUTE + 20_000, 100), // 12:04 bucket
                                        flow(T0 + 5 * MINUTE + 30_000, 10), // watermark past 12:04
                                        flow(T0 + 4 * MINUTE + 40_000, 50), // late, within 2 min
                                        flow(T0 + 10_000, 7)), // 12:00: past the allowance
                                TypeInformation.of(FlowRecord.class))
                        // The flows' watermark: their receive time, as the raw source gives it.
                        .assignTimestampsAndWatermarks(
                                FlowTimestamps.flows(Duration.ZERO, Duration.ZERO));
        RollupTopology.Streams st = RollupTopology.streams(flows, Duration.ofMinutes(1), s);
        List<RollupRow> out = RollupStreams.collect(st.rows().union(lateMarked(st)), "lateness");
        List<RollupRow> in =
                out.stream()
                        .filter(r -> r.kind() == RollupKind.INTERFACE.code() && r.direction() == 0)
                        .toList();
        assertThat(in)
                .extracting(RollupRow::windowStart, RollupRow::bytes, RollupRow::flows)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(T0 + 4 * MINUTE, 100L, 1L),
                        org.assertj.core.groups.Tuple.tuple(T0 + 4 * MINUTE, 150L, 2L),
                        org.assertj.core.groups.Tuple.tuple(T0 + 5 * MINUTE, 10L, 1L));
        List<RollupRow> bucket =
                in.stream().filter(r -> r.windowStart() == T0 + 4 * MINUTE).toList();
        RollupRow first = bucket.stream().filter(r -> r.bytes() == 100).findFirst().orElseThrow();
        RollupRow again = bucket.stream().filter(r -> r.bytes() == 150).findFirst().orElseThrow();
        assertThat(again.version()).isGreaterThan(first.version());
        List<RollupRow> late = out.stream().filter(r -> r.kind() == LATE_MARK).toList();
        // One piece per rollup kind (interface in, out, proto/port, AS pair, talker, conversation).
        assertThat(late).hasSize(6).allMatch(r -> r.windowStart() == T0 && r.bytes() == 7);
        assertThat(out).noneMatch(r -> r.kind() != LATE_MARK && r.windowStart() == T0);
        List<RollupRow> top =
                out.stream().filter(r -> r.kind() == RollupKind.TOP_TALKER.code()).toList();
        assertThat(top).allMatch(r -> r.rank() == 1);
        assertThat(top).extracting(RollupRow::bytes).contains(100L, 150L, 10L);
    }

    /** Marks a row with its resolution: rank + 1000 * (index + 1). */
    private static DataStream<RollupRow> marked(DataStream<RollupRow> rows, int index) {
        return rows.map(
                        r ->
                                r.withCounters(
                                        r.kind(),
                                        r.windowStart(),
                                        r.rank() + 1000 * (index + 1),
                                        r.bytes(),
                                        r.packets(),
                                        r.flows()))
                .returns(RollupRowTypeInfo.INSTANCE);
    }

    /**
     * 2 min derived from 1 min, 10 min from 2 min: a late piece within the allowance re-fires the
     * finer bucket, whose delta re-fires the 2-minute bucket with its complete new counts and a
     * higher version; a piece beyond the 1-minute allowance is dropped for every resolution, also
     * for the 10-minute bucket that is still open (the one difference to computing it from the
     * flows), and counted once.
     */
    @Test
    void derivedResolutionsFollowTheFinestBucketsExactly() throws Exception {
        RollupSettings s =
                RollupStreams.settings(
                        Duration.ofMinutes(2),
                        Duration.ofMinutes(10),
                        Duration.ofMinutes(1),
                        Duration.ofMinutes(2));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        // One subtask: the watermark follows the order of the flows (as in the test above).
        env.setParallelism(1);
        DataStream<FlowRecord> flows =
                env.fromData(
                                List.of(
                                        flow(T0 + 4 * MINUTE + 20_000, 100), // 12:04 bucket
                                        flow(T0 + 6 * MINUTE + 30_000, 10), // 12:04-12:06 fire
                                        flow(T0 + 4 * MINUTE + 40_000, 50), // late, within 2 min
                                        flow(T0 + 10_000, 7)), // 12:00: past the 1 min allowance
                                TypeInformation.of(FlowRecord.class))
                        .assignTimestampsAndWatermarks(
                                FlowTimestamps.flows(Duration.ZERO, Duration.ZERO));
        List<RollupTopology.Streams> st = RollupTopology.streams(flows, s);
        DataStream<RollupRow> all =
                marked(st.get(0).rows(), 0)
                        .union(marked(st.get(1).rows(), 1), marked(st.get(2).rows(), 2));
        List<RollupRow> out = RollupStreams.collect(all.union(lateMarked(st.get(1))), "derived");
        // Index 0 = 10 min, 1 = 1 min, 2 = 2 min (the order of the settings).
        assertThat(interfaceIn(out, 1))
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(T0 + 4 * MINUTE, 100L, 1L),
                        org.assertj.core.groups.Tuple.tuple(T0 + 4 * MINUTE, 150L, 2L),
                        org.assertj.core.groups.Tuple.tuple(T0 + 6 * MINUTE, 10L, 1L));
        assertThat(interfaceIn(out, 2))
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(T0 + 4 * MINUTE, 100L, 1L),
                        org.assertj.core.groups.Tuple.tuple(T0 + 4 * MINUTE, 150L, 2L),
                        org.assertj.core.groups.Tuple.tuple(T0 + 6 * MINUTE, 10L, 1L));
        assertThat(interfaceIn(out, 0))
                .containsExactly(org.assertj.core.groups.Tuple.tuple(T0, 160L, 3L));
        List<RollupRow> twoMinutes =
                out.stream()
                        .filter(
                                r ->
                                        r.kind() == RollupKind.INTERFACE.code()
                                                && r.direction() == 0
                                                && r.rank() == 3000
                                                && r.windowStart() == T0 + 4 * MINUTE)
                        .toList();
        assertThat(twoMinutes).hasSize(2);
        RollupRow first = twoMinutes.stream().filter(r -> r.bytes() == 100).findFirst().get();
        RollupRow again = twoMinutes.stream().filter(r -> r.bytes() == 150).findFirst().get();
        assertThat(again.version()).isGreaterThan(first.version());
        assertThat(out.stream().filter(r -> r.kind() == LATE_MARK))
                .hasSize(6)
                .allMatch(r -> r.windowStart() == T0 && r.bytes() == 7);
        // Top talker of the 10-minute window: the sum of the derived buckets, rank 1.
        assertThat(
                        out.stream()
                                .filter(
                                        r ->
                                                r.kind() == RollupKind.TOP_TALKER.code()
                                                        && r.rank() == 1001))
                .extracting(RollupRow::windowStart, RollupRow::bytes, RollupRow::flows)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(T0, 160L, 3L));
    }

    /** The pieces too late for their bucket, marked with kind {@link #LATE_MARK}. */
    private static DataStream<RollupRow> lateMarked(RollupTopology.Streams st) {
        return st.late()
                .map(
                        r ->
                                r.withCounters(
                                        LATE_MARK,
                                        r.windowStart(),
                                        0,
                                        r.bytes(),
                                        r.packets(),
                                        r.flows()))
                .returns(RollupRowTypeInfo.INSTANCE);
    }

    private static List<org.assertj.core.groups.Tuple> interfaceIn(List<RollupRow> out, int index) {
        return out.stream()
                .filter(
                        r ->
                                r.kind() == RollupKind.INTERFACE.code()
                                        && r.direction() == 0
                                        && r.rank() == 1000 * (index + 1))
                .map(
                        r ->
                                org.assertj.core.groups.Tuple.tuple(
                                        r.windowStart(), r.bytes(), r.flows()))
                .toList();
    }

    /**
     * A flow dated 2100 from one exporter beside good ones: the windows follow the flows' watermark
     * (receive time), not the flows' own times, so the good exporters' later flows are still on
     * time and every bucket is complete; the 2100 piece waits in its own window.
     */
    @Test
    void aFutureDatedFlowMakesNoOtherFlowLate() throws Exception {
        RollupSettings s = RollupStreams.settings(Duration.ZERO, Duration.ofMinutes(1));
        long year2100 = 4_102_444_800_000L;
        FlowRecord future =
                flow(year2100, 1_000).toBuilder()
                        .exporterAddress(IpAddress.parse("192.0.2.66"))
                        .timeReceivedMillis(T0 + 4 * MINUTE + 25_000)
                        .build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<FlowRecord> flows =
                env.fromData(
                                List.of(
                                        flow(T0 + 4 * MINUTE + 20_000, 100),
                                        future,
                                        flow(T0 + 4 * MINUTE + 40_000, 50),
                                        flow(T0 + 5 * MINUTE + 30_000, 10)),
                                TypeInformation.of(FlowRecord.class))
                        .assignTimestampsAndWatermarks(
                                FlowTimestamps.flows(Duration.ZERO, Duration.ZERO));
        RollupTopology.Streams st = RollupTopology.streams(flows, Duration.ofMinutes(1), s);
        List<RollupRow> out = RollupStreams.collect(st.rows().union(lateMarked(st)), "future");
        assertThat(out).noneMatch(r -> r.kind() == LATE_MARK);
        assertThat(
                        out.stream()
                                .filter(
                                        r ->
                                                r.kind() == RollupKind.INTERFACE.code()
                                                        && r.direction() == 0)
                                .map(
                                        r ->
                                                org.assertj.core.groups.Tuple.tuple(
                                                        r.windowStart(), r.bytes(), r.flows()))
                                .toList())
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(T0 + 4 * MINUTE, 150L, 2L),
                        org.assertj.core.groups.Tuple.tuple(T0 + 5 * MINUTE, 10L, 1L),
                        org.assertj.core.groups.Tuple.tuple(year2100, 1_000L, 1L));
    }
}
