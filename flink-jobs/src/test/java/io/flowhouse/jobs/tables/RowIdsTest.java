// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RowIdsTest {

    @Test
    void sameFlowSameIdAcrossDecodes() {
        FlowRecord a = ClickHouseTestSupport.flow(42);
        FlowRecord b = a.toBuilder().build();
        assertThat(RowIds.of(a)).isEqualTo(RowIds.of(b));
        // Stable across releases: a changed id would break deduplication of old rows.
        assertThat(RowIds.of(FlowRecord.builder().version(9).build()))
                .isEqualTo(RowIds.of(FlowRecord.builder().version(9).build()));
    }

    @Test
    void everyIdentityFieldChangesTheId() {
        FlowRecord base = ClickHouseTestSupport.flow(42);
        long id = RowIds.of(base);
        assertThat(
                        RowIds.of(
                                base.toBuilder()
                                        .exporterAddress(IpAddress.parse("192.0.2.99"))
                                        .build()))
                .isNotEqualTo(id);
        assertThat(RowIds.of(base.toBuilder().exporterPort(2056).build())).isNotEqualTo(id);
        assertThat(RowIds.of(base.toBuilder().observationDomainId(8).build())).isNotEqualTo(id);
        assertThat(RowIds.of(base.toBuilder().sequenceNumber(base.sequenceNumber() + 1).build()))
                .isNotEqualTo(id);
        assertThat(RowIds.of(base.toBuilder().recordIndex(base.recordIndex() + 1).build()))
                .isNotEqualTo(id);
        // Counters are not identity: the same record is the same row whatever it says.
        assertThat(RowIds.of(base.toBuilder().bytes(1).build())).isEqualTo(id);
    }

    @Test
    void packetFlowsAreIdentifiedByKeyAndStart() {
        FlowRecord p = ClickHouseTestSupport.flow(7).toBuilder().version(0).build();
        long id = RowIds.of(p);
        assertThat(RowIds.of(p.toBuilder().sequenceNumber(99).build())).isEqualTo(id);
        assertThat(RowIds.of(p.toBuilder().flowStartMillis(p.flowStartMillis() + 1).build()))
                .isNotEqualTo(id);
        assertThat(RowIds.of(p.toBuilder().srcPort(p.srcPort() + 1).build())).isNotEqualTo(id);
    }

    @Test
    void noCollisionsInAMillionSequentialRecords() {
        Set<Long> ids = new HashSet<>();
        FlowRecord.Builder b = ClickHouseTestSupport.flow(0).toBuilder();
        for (int seq = 0; seq < 100_000; seq++) {
            for (int idx = 0; idx < 10; idx++) {
                ids.add(RowIds.of(b.sequenceNumber(seq).recordIndex(idx).build()));
            }
        }
        assertThat(ids).hasSize(1_000_000);
    }
}
