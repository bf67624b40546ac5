// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.ProblemCounts;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.sflow.InterfaceCounters;
import io.flowhouse.codec.template.TemplateScope;
import java.util.List;

/**
 * What the decode step needs from one decoded datagram.
 *
 * @param records the flow records decoded
 * @param missingTemplateIds ids of data sets whose template was unknown, each once (empty if none;
 *     bounded, see {@link io.flowhouse.codec.DecodeResult#missingTemplateIds()})
 * @param version 5, 9 or 10
 * @param observationDomainId observation domain / source id / v5 engine (uint32)
 * @param sequenceNumber header sequence number (uint32)
 * @param sequenceUnits how far the datagram advances its sequence number
 * @param problems what was wrong inside the datagram: the first of each kind, a few at most
 * @param problemCounts every problem, counted by kind
 * @param templateRecords template and options template records the datagram carried
 * @param scope the template scope (v9, IPFIX), null for v5
 * @param counters sFlow counter samples with interface counters (empty for NetFlow/IPFIX)
 */
record DecodedDatagram(
        List<FlowRecord> records,
        List<Integer> missingTemplateIds,
        int version,
        long observationDomainId,
        long sequenceNumber,
        long sequenceUnits,
        List<DecodeProblem> problems,
        ProblemCounts problemCounts,
        int templateRecords,
        TemplateScope scope,
        List<InterfaceCounters> counters) {

    /** Whether a data set's template was unknown. */
    boolean missesTemplates() {
        return !missingTemplateIds.isEmpty();
    }
}
