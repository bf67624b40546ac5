// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.decode.DatagramObservation;
import io.flowhouse.jobs.decode.DatagramObservation.Kind;
import io.flowhouse.jobs.decode.ExporterKeys;
import io.flowhouse.jobs.model.ExporterKeyTypeInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The version of an {@code exporter_stats} row ({@code updated_at}) against what ClickHouse keeps
 * of a minute's rows (the highest version; of equal ones, whichever was inserted last). A minute's
 * counts also change without a newer receive time: a spool drained behind live datagrams (its
 * restart counted then), a re-send. When the version stayed, two rows of one minute with different
 * counts had the same version, and after a job failover the cancelled attempt's late insert of the
 * older row could win: {@code sequence_resets} 0 where the restart counted 1.
 */
class ExporterStatsVersionTest {

    private static final ExporterKey E = new ExporterKey(IpAddress.parse("192.0.2.9"), 2055);
    private static final long T = 1_700_000_040_000L; // a minute's start
    private static final long LIVE = 22; // the agent's next run, live
    private static final long SPOOL = 11; // the run before, drained from its spool

    private static DatagramObservation v5(
            Kind kind, long received, long sequence, long stream, long place) {
        return new DatagramObservation(
                E,
                kind,
                received,
                100,
                5,
                0L,
                sequence,
                kind == Kind.DUPLICATE ? -1L : 3L,
                0,
                new DecodeProblem.Kind[0],
                new int[0],
                kind == Kind.DUPLICATE ? 0 : 3,
                false,
                new long[0],
                stream,
                place);
    }

    /**
     * The spool's run counted places 0..1 before the broker went away, then its exporter restarted;
     * the next run's live datagrams come first, then the spool (the restart among it), then a
     * re-send: all in one minute, every change after the live datagrams older than them.
     */
    private static List<DatagramObservation> stream() {
        List<DatagramObservation> in = new ArrayList<>();
        in.add(v5(Kind.DECODED, T, 600, SPOOL, 0));
        in.add(v5(Kind.DECODED, T + 10, 603, SPOOL, 1));
        in.add(v5(Kind.DECODED, T + 5_000, 606, LIVE, 0));
        in.add(v5(Kind.DECODED, T + 5_010, 609, LIVE, 1));
        in.add(v5(Kind.DECODED, T + 20, 0, SPOOL, 2)); // the exporter restarted
        in.add(v5(Kind.DECODED, T + 30, 3, SPOOL, 3));
        in.add(v5(Kind.DUPLICATE, T + 20, 0, SPOOL, 2));
        return in;
    }

    private static KeyedOneInputStreamOperatorTestHarness<
                    ExporterKey, DatagramObservation, ExporterStats>
            harness(OperatorSubtaskState restore) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new AggregateExporterStats()),
                        new ExporterKeys.OfObservation(),
                        ExporterKeyTypeInfo.INSTANCE);
        h.setup();
        if (restore != null) {
            h.initializeState(restore);
        }
        h.open();
        return h;
    }

    /** Feeds {@code in}, emitting the running minute (the stats timer) after every element. */
    private static void feed(
            KeyedOneInputStreamOperatorTestHarness<ExporterKey, DatagramObservation, ExporterStats>
                    h,
            List<DatagramObservation> in,
            long[] clock)
            throws Exception {
        for (DatagramObservation o : in) {
            h.processElement(new StreamRecord<>(o));
            clock[0] += AggregateExporterStats.STATS_INTERVAL_MILLIS;
            h.setProcessingTime(clock[0]);
        }
    }

    /** What ClickHouse keeps of each minute: highest version, of equal ones the last inserted. */
    private static Map<Long, ExporterStats> kept(List<ExporterStats> inserted) {
        Map<Long, ExporterStats> out = new HashMap<>();
        for (ExporterStats s : inserted) {
            ExporterStats before = out.get(s.minuteMillis());
            if (before == null || s.updatedAtMillis() >= before.updatedAtMillis()) {
                out.put(s.minuteMillis(), s);
            }
        }
        return out;
    }

    @Test
    void everyChangeOfAMinutesCountsRaisesItsVersion() throws Exception {
        long[] clock = {1_000};
        var h = harness(null);
        try {
            h.setProcessingTime(clock[0]);
            feed(h, stream(), clock);
            List<ExporterStats> rows = h.extractOutputValues();
            assertThat(rows).hasSize(stream().size());
            for (int i = 1; i < rows.size(); i++) {
                assertThat(rows.get(i).updatedAtMillis())
                        .as("row %d of one minute, counts changed", i)
                        .isGreaterThan(rows.get(i - 1).updatedAtMillis());
            }
            ExporterStats last = rows.get(rows.size() - 1);
            assertThat(last.sequenceResets()).isEqualTo(1);
            assertThat(last.datagrams()).isEqualTo(6);
            assertThat(last.duplicateDatagrams()).isEqualTo(1);
            // Still a time: the latest receive time, moved on by the changes that left it.
            assertThat(last.updatedAtMillis()).isBetween(T + 5_010, T + 5_010 + 3);
        } finally {
            h.close();
        }
    }

    @Test
    void aReplayAfterAFailoverEndsOnTheCompleteRowWhateverInsertLandsLast() throws Exception {
        List<DatagramObservation> in = stream();
        long minute = Math.floorDiv(T, 60_000L) * 60_000L;
        for (int cut = 0; cut < in.size(); cut++) {
            for (int fail = cut; fail <= in.size(); fail++) {
                long[] clock = {1_000};
                List<ExporterStats> inserted = new ArrayList<>();
                OperatorSubtaskState checkpoint;
                List<ExporterStats> late;
                var failed = harness(null);
                try {
                    failed.setProcessingTime(clock[0]);
                    feed(failed, in.subList(0, cut), clock);
                    checkpoint = failed.snapshot(1L, clock[0]);
                    inserted.addAll(failed.extractOutputValues());
                    int before = inserted.size();
                    // The attempt goes on past its last checkpoint, then fails.
                    feed(failed, in.subList(cut, fail), clock);
                    List<ExporterStats> all = failed.extractOutputValues();
                    late = new ArrayList<>(all.subList(before, all.size()));
                } finally {
                    failed.close();
                }
                var restored = harness(checkpoint);
                try {
                    restored.setProcessingTime(clock[0]);
                    feed(restored, in.subList(cut, in.size()), clock);
                    inserted.addAll(restored.extractOutputValues());
                } finally {
                    restored.close();
                }
                // The failed attempt's in-flight inserts land after the restored job's rows.
                inserted.addAll(late);
                ExporterStats row = kept(inserted).get(minute);
                String at = "checkpoint after " + cut + ", failure after " + fail;
                assertThat(row.sequenceResets()).as("resets, %s", at).isEqualTo(1);
                assertThat(row.datagrams()).as("datagrams, %s", at).isEqualTo(6);
                assertThat(row.duplicateDatagrams()).as("duplicates, %s", at).isEqualTo(1);
            }
        }
    }
}
