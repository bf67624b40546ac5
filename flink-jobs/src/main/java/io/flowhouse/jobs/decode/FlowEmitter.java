// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.template.TemplateCache;
import io.flowhouse.jobs.config.SamplingPolicy;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;

/**
 * Emits a datagram's decoded records, each with the sampling rate that applies to it ({@link
 * SamplingPolicy}; counters stay as sent). A record is rebuilt only when its rate changes: the
 * codec already stamped the exporter's address and port.
 */
final class FlowEmitter {

    private final SamplingPolicy sampling;
    private final TemplateCache cache;
    private final Counter flows;

    FlowEmitter(SamplingPolicy sampling, TemplateCache cache, Counter flows) {
        this.sampling = sampling;
        this.cache = cache;
        this.flows = flows;
    }

    /** Emits the records; returns how many. */
    int emit(RawDatagram d, DecodedDatagram r, Collector<FlowRecord> out) {
        int n = r.records().size();
        if (n == 0) {
            return 0;
        }
        // Options data announced a sampling rate for the scope: a rate of 1 in a record is real.
        boolean announced =
                r.scope() != null && !cache.options(r.scope()).samplingRates().isEmpty();
        long override = sampling.overrideFor(d.exporter());
        for (FlowRecord f : r.records()) {
            long sent = f.samplingRate();
            long rate = sampling.rateFor(override, sent > 1 || announced ? sent : 0L);
            out.collect(rate == sent ? f : f.toBuilder().samplingRate(rate).build());
        }
        flows.inc(n);
        return n;
    }
}
