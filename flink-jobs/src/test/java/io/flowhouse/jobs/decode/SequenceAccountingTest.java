// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.jobs.model.ScopeCounters;
import org.junit.jupiter.api.Test;

class SequenceAccountingTest {

    @Test
    void v9CountsLostDatagrams() {
        ScopeCounters c = SequenceAccounting.count(ScopeCounters.INITIAL, 9, 100, 5, 1);
        c = SequenceAccounting.count(c, 9, 101, 5, 2);
        c = SequenceAccounting.count(c, 9, 105, 5, 3);
        assertThat(c.lostDatagrams()).isEqualTo(3);
        assertThat(c.lostFlows()).isZero();
        assertThat(c.datagrams()).isEqualTo(3);
        assertThat(c.nextSequence()).isEqualTo(106);
    }

    @Test
    void ipfixCountsLostRecordsAcrossTheWrap() {
        ScopeCounters c = SequenceAccounting.count(ScopeCounters.INITIAL, 10, 0xffff_fff0L, 10, 1);
        c = SequenceAccounting.count(c, 10, 0xffff_fffaL, 10, 2);
        assertThat(c.nextSequence()).isEqualTo(4);
        c = SequenceAccounting.count(c, 10, 9, 1, 3);
        assertThat(c.lostFlows()).isEqualTo(5);
        assertThat(c.sequenceResets()).isZero();
    }

    @Test
    void restartIsAResetNotALoss() {
        ScopeCounters c = SequenceAccounting.count(ScopeCounters.INITIAL, 5, 5000, 30, 1);
        c = SequenceAccounting.count(c, 5, 0, 30, 2);
        assertThat(c.sequenceResets()).isEqualTo(1);
        assertThat(c.lostFlows()).isZero();
        c = SequenceAccounting.count(c, 5, 30, 30, 3);
        assertThat(c.sequenceResets()).isEqualTo(1);
        assertThat(c.lostFlows()).isZero();
    }

    @Test
    void unknownRecordCountOnlyResynchronises() {
        ScopeCounters c = SequenceAccounting.count(ScopeCounters.INITIAL, 10, 100, -1, 1);
        assertThat(c.nextSequence()).isEqualTo(-1);
        c = SequenceAccounting.count(c, 10, 180, 20, 2);
        assertThat(c.lostFlows()).isZero();
        assertThat(c.sequenceResets()).isZero();
        assertThat(c.nextSequence()).isEqualTo(200);
    }
}
