// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.codec.flow.FlowRecord;
import org.apache.flink.api.common.functions.MapFunction;

/**
 * The flow as the ZMQ and IPFIX fan-out send it with enrichment on: the source and destination AS
 * numbers the context stores ({@code enrich.asn-order}: the exporter's, else the database's), in
 * the fields those formats have for them (nProbe {@code SRC_AS}/{@code DST_AS}, IPFIX {@code
 * bgpSourceAsNumber}/{@code bgpDestinationAsNumber}). A flow whose numbers do not change is passed
 * on as it is.
 */
public final class WithContextAs implements MapFunction<EnrichedFlow, FlowRecord> {

    private static final long serialVersionUID = 1L;

    @Override
    public FlowRecord map(EnrichedFlow e) {
        FlowRecord f = e.flow();
        long src = e.context().srcAs();
        long dst = e.context().dstAs();
        if (f.srcAs() == src && f.dstAs() == dst) {
            return f;
        }
        return f.toBuilder().srcAs(src).dstAs(dst).build();
    }
}
