// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.packet.PacketSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateChangelogOptions;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.state.rocksdb.EmbeddedRocksDBStateBackend;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The bucketed flow table against the keyed one on the synthetic trace: fed in lockstep, the two
 * emit the same records (equal in every field) between each pair of watermarks, for uniflows and
 * biflows, several timeouts (TCP end linger 0 included), a memory bound that trips, one bucket to
 * thousands, and the trace shuffled so that packets arrive out of order and late. The bucketed
 * table emits in the same order on every run, and continues from a snapshot with exactly the flows
 * of an uninterrupted run. On the heap backend it updates its tables in place and still renews
 * their state TTL; on RocksDB it writes every change back and emits the same flows.
 */
class BucketedFlowAgeingFunctionTest {

    private static List<PacketSummary> trace;
    private static List<PacketSummary> shuffled;

    @BeforeAll
    static void load() throws Exception {
        trace = Packets.trace();
        // Out of order within blocks of 64 packets, and every 97th packet 40 s late.
        List<PacketSummary> s = new ArrayList<>(trace);
        Random r = new Random(42);
        for (int i = 0; i + 64 <= s.size(); i += 64) {
            Collections.shuffle(s.subList(i, i + 64), r);
        }
        for (int i = 97; i < s.size(); i += 97) {
            PacketSummary p = s.get(i);
            s.set(
                    i,
                    PacketSummary.builder()
                            .from(p)
                            .timestampNanos(p.timestampNanos() - 40_000_000_000L)
                            .build());
        }
        shuffled = s;
    }

    private static AgeingSettings settings(
            long active, long idle, long tcpEnd, boolean biflow, int maxFlows) {
        return AgeingSettings.defaults()
                .withTimeouts(
                        Duration.ofSeconds(active),
                        Duration.ofSeconds(idle),
                        Duration.ofSeconds(tcpEnd))
                .withBiflow(biflow)
                .withMaxActiveFlows(maxFlows);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                Arguments.of("softflowd uniflows", settings(120, 300, 300, false, 0), 4096, false),
                Arguments.of("softflowd biflows", settings(120, 300, 300, true, 0), 4096, false),
                Arguments.of("pmacct", settings(120, 30, 10, false, 0), 64, false),
                Arguments.of("short, no linger", settings(5, 2, 0, false, 0), 64, false),
                Arguments.of("biflows, no linger", settings(20, 5, 0, true, 0), 7, false),
                Arguments.of("one bucket", settings(60, 15, 10, true, 0), 1, false),
                Arguments.of("out of order", settings(120, 30, 10, false, 0), 64, true),
                Arguments.of("out of order biflows", settings(30, 10, 0, true, 0), 8, true));
    }

    /**
     * The memory bound is where the two tables part: the keyed one bounds the flows of a parallel
     * instance, the bucketed one those of each bucket (its share of the bound, from its own table,
     * so that a replay cuts the same). Here the bucketed table on its own: the bound trips, every
     * packet is in a flow or counted late, and a run with its watermarks elsewhere cuts the same
     * flows.
     */
    static Stream<Arguments> bounded() {
        return Stream.of(
                Arguments.of("memory bound", settings(120, 30, 10, false, 40), 16, false),
                Arguments.of("out of order biflows", settings(30, 10, 0, true, 25), 8, true));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("bounded")
    void theBucketedBoundTripsLosesNoPacketAndCutsTheSameWhereverTheWatermarkComes(
            String name, AgeingSettings s, int buckets, boolean outOfOrder) throws Exception {
        List<PacketSummary> packets = outOfOrder ? shuffled : trace;
        AgeingSettings b = s.withFlowTable(true, buckets);
        List<FlowRecord> often = null;
        for (int every : new int[] {333, 4_000}) {
            try (AgeingHarness h = AgeingHarness.open(b)) {
                long maxSeen = Long.MIN_VALUE;
                int n = 0;
                for (PacketSummary p : packets) {
                    h.push(p);
                    maxSeen = Math.max(maxSeen, p.timestampNanos() / 1_000_000L);
                    if (++n % every == 0) {
                        h.watermark(maxSeen - 2_000);
                    }
                }
                h.watermark(Long.MAX_VALUE);
                List<FlowRecord> out = h.output();
                assertThat(out.stream().filter(f -> f.flowEndReason() == 5).count()).isPositive();
                assertThat(
                                out.stream().mapToLong(f -> f.packets() + f.reversePackets()).sum()
                                        + h.lateDropped())
                        .isEqualTo(Packets.TRACE_PACKETS);
                assertThat(h.flows()).isZero();
                if (often == null) {
                    often = out;
                } else if (!outOfOrder) {
                    // Late packets aside (the shuffled trace has some: which are late depends on
                    // the watermark), the cuts do not depend on it.
                    assertThat(out).containsExactlyInAnyOrderElementsOf(often);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void emitsTheSameFlowsAsTheKeyedTable(
            String name, AgeingSettings s, int buckets, boolean outOfOrder) throws Exception {
        List<PacketSummary> packets = outOfOrder ? shuffled : trace;
        try (AgeingHarness keyed = AgeingHarness.open(s.withFlowTable(false, buckets));
                AgeingHarness bucketed = AgeingHarness.open(s.withFlowTable(true, buckets))) {
            long maxSeen = Long.MIN_VALUE;
            int n = 0;
            int seen = 0;
            for (PacketSummary p : packets) {
                keyed.push(p);
                bucketed.push(p);
                maxSeen = Math.max(maxSeen, p.timestampNanos() / 1_000_000L);
                if (++n % 333 == 0) {
                    keyed.watermark(maxSeen - 2_000);
                    bucketed.watermark(maxSeen - 2_000);
                    seen = sameSince(keyed, bucketed, seen);
                    assertThat(bucketed.flows()).isEqualTo(keyed.flows());
                }
            }
            keyed.watermark(Long.MAX_VALUE);
            bucketed.watermark(Long.MAX_VALUE);
            sameSince(keyed, bucketed, seen);
            assertThat(bucketed.output()).hasSize(keyed.output().size());
            assertThat(bucketed.lateDropped()).isEqualTo(keyed.lateDropped());
            assertThat(
                            bucketed.output().stream()
                                            .mapToLong(f -> f.packets() + f.reversePackets())
                                            .sum()
                                    + bucketed.lateDropped())
                    .isEqualTo(Packets.TRACE_PACKETS);
            assertThat(bucketed.stateEntries()).isZero();
            assertThat(bucketed.timers()).isZero();
            assertThat(bucketed.flows()).isZero();
        }
    }

    /** The records both emitted since index {@code from} are the same, in any order. */
    private static int sameSince(AgeingHarness keyed, AgeingHarness bucketed, int from) {
        List<FlowRecord> k = keyed.output();
        List<FlowRecord> b = bucketed.output();
        assertThat(b.subList(from, b.size()))
                .containsExactlyInAnyOrderElementsOf(k.subList(from, k.size()));
        return k.size();
    }

    @Test
    void updatesTablesInPlaceOnTheHeapAndStillRenewsTheirStateTtl() throws Exception {
        AgeingSettings s = settings(120, 30, 10, false, 0).withFlowTable(true, 4);
        long ttl = s.stateTtl().toMillis();
        long t0 = trace.get(0).timestampNanos() / 1_000_000L;
        try (AgeingHarness h = AgeingHarness.open(s)) {
            // One packet a second of packet time, a third of the state TTL apart in processing
            // time: four TTLs in all. Without the renewal the table would expire on the fourth.
            for (int i = 0; i < 12; i++) {
                h.setStateTtlProcessingTime(i * ttl / 3);
                h.push(Packets.udp(t0 + i * 1_000L, "192.0.2.1", 4000, "198.51.100.1", 53, 60));
            }
            assertThat(h.inPlace()).isTrue();
            h.watermark(Long.MAX_VALUE);
            assertThat(h.output()).hasSize(1);
            assertThat(h.output().get(0).packets()).isEqualTo(12);
            assertThat(h.output().get(0).flowEndReason()).isEqualTo(FlowAgeingFunction.END_IDLE);
            assertThat(h.stateEntries()).isZero();
        }
    }

    @Test
    void writesEveryChangeBackOnRocksDbAndEmitsTheSameFlows() throws Exception {
        AgeingSettings s = settings(120, 30, 10, true, 0).withFlowTable(true, 64);
        try (AgeingHarness heap = AgeingHarness.openOn(s, new HashMapStateBackend());
                AgeingHarness rocks = AgeingHarness.openOn(s, new EmbeddedRocksDBStateBackend())) {
            long maxSeen = Long.MIN_VALUE;
            int n = 0;
            int seen = 0;
            for (PacketSummary p : shuffled) {
                heap.push(p);
                rocks.push(p);
                maxSeen = Math.max(maxSeen, p.timestampNanos() / 1_000_000L);
                if (++n % 1_000 == 0) {
                    heap.watermark(maxSeen - 2_000);
                    rocks.watermark(maxSeen - 2_000);
                    seen = sameSince(heap, rocks, seen);
                }
            }
            heap.watermark(Long.MAX_VALUE);
            rocks.watermark(Long.MAX_VALUE);
            sameSince(heap, rocks, seen);
            assertThat(heap.inPlace()).isTrue();
            assertThat(rocks.inPlace()).isFalse();
            assertThat(rocks.output()).hasSize(heap.output().size());
            assertThat(rocks.lateDropped()).isEqualTo(heap.lateDropped());
            assertThat(
                            rocks.output().stream()
                                            .mapToLong(f -> f.packets() + f.reversePackets())
                                            .sum()
                                    + rocks.lateDropped())
                    .isEqualTo(Packets.TRACE_PACKETS);
            assertThat(rocks.flows()).isZero();
            assertThat(rocks.timers()).isZero();
        }
    }

    @Test
    void writesEveryChangeBackWithTheChangelogEnabled() throws Exception {
        // The changelog backend wraps the heap one (the same object comes back) but records
        // writes only: the function must not update in place there. Heap state here, with the
        // TaskManager's configuration saying changelog: the flows stay the same.
        AgeingSettings s = settings(120, 30, 10, false, 0).withFlowTable(true, 16);
        Configuration changelog = new Configuration();
        changelog.set(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG, true);
        try (AgeingHarness h = AgeingHarness.openOn(s, new HashMapStateBackend(), changelog)) {
            long maxSeen = Long.MIN_VALUE;
            int n = 0;
            for (PacketSummary p : trace) {
                h.push(p);
                maxSeen = Math.max(maxSeen, p.timestampNanos() / 1_000_000L);
                if (++n % 500 == 0) {
                    h.watermark(maxSeen - 1_000);
                }
            }
            h.watermark(Long.MAX_VALUE);
            assertThat(h.inPlace()).isFalse();
            assertThat(h.output())
                    .containsExactlyInAnyOrderElementsOf(SyntheticTraceAgeingTest.age(trace, s));
        }
    }

    @Test
    void emitsInTheSameOrderOnEveryRun() throws Exception {
        AgeingSettings s = settings(120, 30, 10, true, 0).withFlowTable(true, 16);
        assertThat(SyntheticTraceAgeingTest.age(shuffled, s))
                .containsExactlyElementsOf(SyntheticTraceAgeingTest.age(shuffled, s));
    }

    @Test
    void continuesExactlyFromASnapshot() throws Exception {
        continueFromASnapshot(32, 32, true);
    }

    @Test
    void aSnapshotWithMoreBucketsRestoresAndEveryPacketStillCounts() throws Exception {
        // Lowering flowhouse.packets.flow-table-buckets on a restore: the restored buckets keep
        // their flows and timers (flows open at the snapshot are split in two), none is lost.
        continueFromASnapshot(64, 8, false);
    }

    private static void continueFromASnapshot(int before, int after, boolean exact)
            throws Exception {
        AgeingSettings s = settings(120, 30, 10, false, 0).withFlowTable(true, before);
        List<FlowRecord> whole = SyntheticTraceAgeingTest.age(trace, s);
        List<FlowRecord> out = new ArrayList<>();
        int half = trace.size() / 2;
        long maxSeen = Long.MIN_VALUE;
        OperatorSubtaskState snapshot;
        try (AgeingHarness h = AgeingHarness.open(s)) {
            for (int i = 0; i < half; i++) {
                PacketSummary p = trace.get(i);
                h.push(p);
                maxSeen = Math.max(maxSeen, p.timestampNanos() / 1_000_000L);
                if ((i + 1) % 500 == 0) {
                    h.watermark(maxSeen - 1_000);
                }
            }
            snapshot = h.snapshot(1);
            out.addAll(h.output());
            assertThat(h.flows()).isPositive();
        }
        try (AgeingHarness h = AgeingHarness.open(s.withFlowTable(true, after), snapshot)) {
            for (int i = half; i < trace.size(); i++) {
                PacketSummary p = trace.get(i);
                h.push(p);
                maxSeen = Math.max(maxSeen, p.timestampNanos() / 1_000_000L);
                if ((i + 1) % 500 == 0) {
                    h.watermark(maxSeen - 1_000);
                }
            }
            h.watermark(Long.MAX_VALUE);
            out.addAll(h.output());
            assertThat(h.stateEntries()).isZero();
            assertThat(h.timers()).isZero();
        }
        if (exact) {
            // Buckets whose timers fire at the same time may fire in another order after a
            // restore.
            assertThat(out).containsExactlyInAnyOrderElementsOf(whole);
        } else {
            assertThat(out.stream().mapToLong(FlowRecord::packets).sum())
                    .isEqualTo(Packets.TRACE_PACKETS);
            assertThat(out.stream().mapToLong(FlowRecord::bytes).sum())
                    .isEqualTo(Packets.TRACE_BYTES);
            assertThat(out.size()).isGreaterThanOrEqualTo(whole.size());
        }
    }
}
