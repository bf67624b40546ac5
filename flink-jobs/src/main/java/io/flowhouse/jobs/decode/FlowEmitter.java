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
 * SamplingPolicy}; counters stay as sent) and its times in the event-time window ({@link
 * EventTimeClamp}). A record is rebuilt only when its rate or its times change: the codec already
 * stamped the exporter's address and port and the datagram's stream.
 */
final class FlowEmitter {

    private final SamplingPolicy sampling;
    private final TemplateCache cache;
    private final EventTimeClamp clamp;
    private final Counter flows;
    private final Counter clamped;
    private final Counter durationCut;
    private final Counter outOfRange;
    private int lastOutOfRange;

    FlowEmitter(
            SamplingPolicy sampling,
            TemplateCache cache,
            EventTimeClamp clamp,
            Counter flows,
            Counter clamped,
            Counter durationCut,
            Counter outOfRange) {
        this.sampling = sampling;
        this.cache = cache;
        this.clamp = clamp;
        this.flows = flows;
        this.clamped = clamped;
        this.durationCut = durationCut;
        this.outOfRange = outOfRange;
    }

    /** Records of the last {@link #emit} dropped for ending outside the event-time window. */
    int lastOutOfRange() {
        return lastOutOfRange;
    }

    /** Emits the records; returns how many. */
    int emit(RawDatagram d, DecodedDatagram r, Collector<FlowRecord> out) {
        lastOutOfRange = 0;
        int n = r.records().size();
        if (n == 0) {
            return 0;
        }
        // Options data announced a sampling rate for the scope: a rate of 1 in a record is real.
        boolean announced =
                r.scope() != null && !cache.options(r.scope()).samplingRates().isEmpty();
        long override = sampling.overrideFor(d.exporter());
        int emitted = 0;
        for (FlowRecord f : r.records()) {
            long sent = f.samplingRate();
            long rate = sampling.rateFor(override, sent > 1 || announced ? sent : 0L);
            FlowRecord g = clamp.apply(f);
            if (g == null) {
                lastOutOfRange++;
                continue;
            }
            if (g != f) {
                clamped.inc();
                if (EventTimeClamp.durationCut(f, g)) {
                    durationCut.inc();
                }
            }
            out.collect(rate == sent ? g : g.toBuilder().samplingRate(rate).build());
            emitted++;
        }
        flows.inc(emitted);
        outOfRange.inc(lastOutOfRange);
        return emitted;
    }
}
