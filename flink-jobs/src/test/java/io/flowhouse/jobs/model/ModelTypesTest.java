// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import static org.apache.flink.types.PojoTestUtils.assertSerializedAsPojoWithoutKryo;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.decode.DatagramObservation;
import io.flowhouse.jobs.stats.ExporterStats;
import io.flowhouse.jobs.stats.ScopeCounters;
import org.junit.jupiter.api.Test;

/** Every type on the wire and in state serializes as a POJO (pipeline.generic-types: false). */
class ModelTypesTest {

    @Test
    void allTypesArePojos() {
        assertSerializedAsPojoWithoutKryo(FlowRecord.class);
        assertSerializedAsPojoWithoutKryo(RawDatagram.class);
        assertSerializedAsPojoWithoutKryo(RejectedDatagram.class);
        assertSerializedAsPojoWithoutKryo(ArchivedTemplate.class);
        assertSerializedAsPojoWithoutKryo(StoredTemplate.class);
        assertSerializedAsPojoWithoutKryo(HeldDatagram.class);
        assertSerializedAsPojoWithoutKryo(ScopeCounters.class);
        assertSerializedAsPojoWithoutKryo(ExporterStats.class);
        assertSerializedAsPojoWithoutKryo(DatagramObservation.class);
        assertSerializedAsPojoWithoutKryo(ProblemKey.class);
    }
}
