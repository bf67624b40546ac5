// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.jobs.model.ScopeCounters;
import org.junit.jupiter.api.Test;

class SequenceAccountingTest {

    @Test
    void v9CountsLostDatagrams() {
        ScopeCounters c = new ScopeCounters();
        SequenceAccounting.count(c, 9, 100, 1);
        SequenceAccounting.count(c, 9, 101, 1);
        SequenceAccounting.count(c, 9, 105, 1);
        assertThat(c.lostDatagrams).isEqualTo(3);
        assertThat(c.sequenceGaps).isEqualTo(1);
        assertThat(c.lostRecords).isZero();
        assertThat(c.nextSequence).isEqualTo(106);
    }

    @Test
    void ipfixCountsLostRecordsAcrossTheWrap() {
        ScopeCounters c = new ScopeCounters();
        SequenceAccounting.count(c, 10, 0xffff_fff0L, 10);
        SequenceAccounting.count(c, 10, 0xffff_fffaL, 10);
        assertThat(c.nextSequence).isEqualTo(4);
        SequenceAccounting.count(c, 10, 9, 1);
        assertThat(c.lostRecords).isEqualTo(5);
        assertThat(c.sequenceResets).isZero();
    }

    @Test
    void restartIsAResetNotALoss() {
        ScopeCounters c = new ScopeCounters();
        SequenceAccounting.count(c, 5, 5000, 30);
        SequenceAccounting.count(c, 5, 0, 30);
        assertThat(c.sequenceResets).isEqualTo(1);
        assertThat(c.lostRecords).isZero();
        SequenceAccounting.count(c, 5, 30, 30);
        assertThat(c.sequenceResets).isEqualTo(1);
        assertThat(c.lostRecords).isZero();
    }

    @Test
    void unknownUnitsOnlyResynchronise() {
        ScopeCounters c = new ScopeCounters();
        SequenceAccounting.count(c, 10, 100, -1);
        assertThat(c.nextSequence).isEqualTo(-1);
        SequenceAccounting.count(c, 10, 180, 20);
        assertThat(c.lostRecords).isZero();
        assertThat(c.sequenceResets).isZero();
        assertThat(c.nextSequence).isEqualTo(200);
    }
}
