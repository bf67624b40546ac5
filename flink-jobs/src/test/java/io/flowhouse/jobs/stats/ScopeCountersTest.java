// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.stats;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import org.junit.jupiter.api.Test;

/** Sequence accounting of a scope: the codec's step, every step back a restart. */
class ScopeCountersTest {

    @Test
    void v9CountsLostDatagrams() {
        ScopeCounters c = new ScopeCounters();
        c.countSequence(9, 100, 1);
        c.countSequence(9, 101, 1);
        c.countSequence(9, 105, 1);
        assertThat(c.lostDatagrams).isEqualTo(3);
        assertThat(c.sequenceGaps).isEqualTo(1);
        assertThat(c.lostRecords).isZero();
        assertThat(c.nextSequence).isEqualTo(106);
    }

    @Test
    void sflowCountsLostDatagrams() {
        ScopeCounters c = new ScopeCounters();
        c.countSequence(FlowRecord.VERSION_SFLOW5, 7, 1);
        c.countSequence(FlowRecord.VERSION_SFLOW5, 8, 1);
        c.countSequence(FlowRecord.VERSION_SFLOW5, 11, 1);
        assertThat(c.lostDatagrams).isEqualTo(2);
        assertThat(c.sequenceGaps).isEqualTo(1);
        assertThat(c.lostRecords).isZero();
        c.countSequence(FlowRecord.VERSION_SFLOW5, 1, 1);
        assertThat(c.sequenceResets).isEqualTo(1);
        assertThat(c.nextSequence).isEqualTo(2);
    }

    @Test
    void sflowSamplesCountLossAndDropsPerSource() {
        ScopeCounters c = new ScopeCounters();
        long a = 3; // ifIndex 3
        long b = (2L << 32) | 1000; // entity 1000
        // First sight sets the baselines (drops 5 already counted by the agent before).
        assertThat(c.countSflowSamples(new long[] {a, 10, 5, b, 7, 0}, 16)).isZero();
        assertThat(c.lostSamples).isZero();
        assertThat(c.sampleDrops).isZero();
        // a: 11 follows 10; b: 9 after 7 loses one; a's drops go 5 -> 8.
        c.countSflowSamples(new long[] {a, 11, 5, b, 9, 0, a, 12, 8}, 16);
        assertThat(c.lostSamples).isEqualTo(1);
        assertThat(c.sampleDrops).isEqualTo(3);
        // b restarts: no loss, its drops counter starts again.
        c.countSflowSamples(new long[] {b, 1, 0}, 16);
        assertThat(c.lostSamples).isEqualTo(1);
        assertThat(c.sampleDrops).isEqualTo(3);
        assertThat(c.sflowSources).containsExactly(a, b);
        assertThat(c.sflowNextSample).containsExactly(13, 2);
        ScopeCounters copy = c.copy();
        c.startMinute(60_000);
        assertThat(c.lostSamples).isZero();
        assertThat(c.sampleDrops).isZero();
        assertThat(copy.lostSamples).isEqualTo(1);
        assertThat(copy.sflowSources).containsExactly(a, b).isNotSameAs(c.sflowSources);
        // The sequence state survives the minute: a gap across it counts in the new one.
        c.countSflowSamples(new long[] {a, 15, 8}, 16);
        assertThat(c.lostSamples).isEqualTo(2);
    }

    @Test
    void sflowSourcesBeyondTheBoundAreNotAccounted() {
        ScopeCounters c = new ScopeCounters();
        assertThat(c.countSflowSamples(new long[] {1, 1, 0, 2, 1, 0, 3, 1, 0}, 2)).isEqualTo(1);
        assertThat(c.countSflowSamples(new long[] {3, 9, 0, 1, 2, 0}, 2)).isEqualTo(1);
        assertThat(c.sflowSources).containsExactly(1, 2);
        assertThat(c.lostSamples).isZero();
    }

    @Test
    void ipfixCountsLostRecordsAcrossTheWrap() {
        ScopeCounters c = new ScopeCounters();
        c.countSequence(10, 0xffff_fff0L, 10);
        c.countSequence(10, 0xffff_fffaL, 10);
        assertThat(c.nextSequence).isEqualTo(4);
        c.countSequence(10, 9, 1);
        assertThat(c.lostRecords).isEqualTo(5);
        assertThat(c.sequenceResets).isZero();
    }

    @Test
    void restartIsAResetNotALoss() {
        ScopeCounters c = new ScopeCounters();
        c.countSequence(5, 5000, 30);
        c.countSequence(5, 0, 30);
        assertThat(c.sequenceResets).isEqualTo(1);
        assertThat(c.lostRecords).isZero();
        c.countSequence(5, 30, 30);
        assertThat(c.sequenceResets).isEqualTo(1);
        assertThat(c.lostRecords).isZero();
    }

    @Test
    void unknownUnitsOnlyResynchronise() {
        ScopeCounters c = new ScopeCounters();
        c.countSequence(10, 100, -1);
        assertThat(c.nextSequence).isEqualTo(-1);
        c.countSequence(10, 180, 20);
        assertThat(c.lostRecords).isZero();
        assertThat(c.sequenceResets).isZero();
        assertThat(c.nextSequence).isEqualTo(200);
    }

    @Test
    void aSpoolDrainBesideLiveDatagramsIsNoReset() {
        // Agent run 1 (stream 11) received v5 sequences 0..20 (5 flows each, places 0..4); 0 and
        // 5 reached Kafka, the rest waits in the spool. Run 2 (stream 22) receives 40.. live
        // while the spool drains: the job sees the two streams interleaved.
        ScopeCounters c = new ScopeCounters();
        c.countSequence(5, 0, 5, 11, 0);
        c.countSequence(5, 5, 5, 11, 1);
        c.countSequence(5, 40, 5, 22, 0);
        c.countSequence(5, 10, 5, 11, 2);
        c.countSequence(5, 45, 5, 22, 1);
        c.countSequence(5, 15, 5, 11, 3);
        c.countSequence(5, 20, 5, 11, 4);
        c.countSequence(5, 50, 5, 22, 2);
        assertThat(c.sequenceResets).isZero();
        assertThat(c.sequenceGaps).isZero();
        // One sequence state over both (the datagrams without a stamp) sees restarts.
        ScopeCounters one = new ScopeCounters();
        for (long s : new long[] {0, 5, 40, 10, 45, 15, 20, 50}) {
            one.countSequence(5, s, 5);
        }
        assertThat(one.sequenceResets).isEqualTo(2);
    }

    @Test
    void aStreamsOwnSpoolDrainedBesideItsLiveDatagramsIsNoReset() {
        // One run: places 2..3 were spooled while the broker was away; 4.. go straight to Kafka
        // while the spool drains, so 2 and 3 arrive after 4.
        ScopeCounters c = new ScopeCounters();
        c.countSequence(9, 100, 1, 11, 0);
        c.countSequence(9, 101, 1, 11, 1);
        c.countSequence(9, 104, 1, 11, 4);
        c.countSequence(9, 102, 1, 11, 2);
        c.countSequence(9, 103, 1, 11, 3);
        c.countSequence(9, 105, 1, 11, 5);
        assertThat(c.sequenceResets).isZero();
        c.countSequence(9, 0, 1, 11, 6); // the exporter restarted on its port
        assertThat(c.sequenceResets).isEqualTo(1);
    }

    @Test
    void aRestartWithinAStreamIsAResetAndTheStreamsAreBounded() {
        ScopeCounters c = new ScopeCounters();
        c.countSequence(9, 500, 1, 7, 0);
        c.countSequence(9, 501, 1, 7, 1);
        c.countSequence(9, 0, 1, 7, 2); // the exporter restarted on its port
        c.countSequence(9, 1, 1, 7, 3);
        assertThat(c.sequenceResets).isEqualTo(1);
        for (long stream = 100; stream < 100 + ScopeCounters.MAX_STREAMS; stream++) {
            c.countSequence(9, 1_000, 1, stream, 0);
        }
        assertThat(c.streams).hasSize(ScopeCounters.MAX_STREAMS).doesNotContain(7L);
        c.countSequence(9, 900, 1, 7, 4); // forgotten: a new baseline, not a reset
        assertThat(c.sequenceResets).isEqualTo(1);
        assertThat(c.streams[ScopeCounters.MAX_STREAMS - 1]).isEqualTo(7L);
        assertThat(c.streamNextSequence[ScopeCounters.MAX_STREAMS - 1]).isEqualTo(901L);
        assertThat(c.copy().streams).isEqualTo(c.streams).isNotSameAs(c.streams);
    }
}
