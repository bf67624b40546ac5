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
}
