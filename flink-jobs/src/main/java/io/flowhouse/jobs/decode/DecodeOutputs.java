// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.sflow.InterfaceCounters;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.jobs.enrich.FlowEnrichment;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.OptionsInterfaceName;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.OutputTag;

/** Side outputs of {@link DecodeRawFlowFunction}; the main output is the decoded flows. */
public final class DecodeOutputs {

    /** Datagrams that could not be decoded, with the reason: to {@code flows.rejected}. */
    public static final OutputTag<RejectedDatagram> REJECTED =
            new OutputTag<>("rejected", TypeInformation.of(RejectedDatagram.class));

    /** Templates and options data learned (new or changed): to {@code flows.templates}. */
    public static final OutputTag<ArchivedTemplate> TEMPLATES =
            new OutputTag<>("templates", TypeInformation.of(ArchivedTemplate.class));

    /** What was observed of each datagram: to the exporter statistics. */
    public static final OutputTag<DatagramObservation> OBSERVATIONS =
            new OutputTag<>("observations", TypeInformation.of(DatagramObservation.class));

    /** sFlow counter samples with interface counters: to {@code interface_counters}. */
    public static final OutputTag<InterfaceCounters> INTERFACE_COUNTERS =
            new OutputTag<>("interface-counters", TypeInformation.of(InterfaceCounters.class));

    /**
     * Interface names from options data, every name of a scope whose options data was learned or
     * changed (or restored from the archive). Decode's own enrichment learns them directly; this
     * output is for a consumer outside decode's chain (the job's graph has none).
     */
    public static final OutputTag<OptionsInterfaceName> INTERFACE_NAMES =
            new OutputTag<>("interface-names", TypeInformation.of(OptionsInterfaceName.class));

    /**
     * With enrichment on: every flow of the main output again, with its context ({@link
     * FlowEnrichment}, names from decode's own options data), chained to decode.
     */
    public static final OutputTag<EnrichedFlow> ENRICHED =
            new OutputTag<>("enriched", TypeInformation.of(EnrichedFlow.class));

    private DecodeOutputs() {}
}
