// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RejectedDatagram;
import java.time.Duration;
import java.util.StringJoiner;
import org.apache.flink.metrics.Counter;

/**
 * Sends datagrams to {@link DecodeOutputs#REJECTED} (once each), with the reason and a bounded
 * detail ({@link DeadLetterPolicy}).
 */
final class DeadLetters {

    private final Duration templateHold;
    private final Counter rejected;

    DeadLetters(Duration templateHold, Counter rejected) {
        this.templateHold = templateHold;
        this.rejected = rejected;
    }

    /**
     * Dead-letters what a decode left undone (what decoded has been emitted): data sets whose
     * template did not come, else problems that mean part of the datagram was not processed.
     *
     * @return whether the datagram was dead-lettered
     */
    boolean afterDecode(DecodeRawFlowFunction.Context ctx, RawDatagram d, DecodedDatagram r) {
        return r.missesTemplates() ? templateMissing(ctx, d, r) : notProcessed(ctx, d, r);
    }

    /** A datagram whose templates did not come in time; always dead-lettered. */
    boolean templateMissing(DecodeRawFlowFunction.Context ctx, RawDatagram d, DecodedDatagram r) {
        StringJoiner ids = new StringJoiner(", ", "no template ", "");
        for (int id : r.missingTemplateIds()) {
            ids.add(Integer.toString(id));
        }
        String detail =
                ids
                        + " in version "
                        + r.version()
                        + " domain "
                        + r.observationDomainId()
                        + " within "
                        + templateHold
                        + "; "
                        + r.records().size()
                        + " records of this datagram were decoded and emitted";
        if (DeadLetterPolicy.reason(r.problemCounts(), r.problems()) != null) {
            detail =
                    DeadLetterPolicy.bound(
                            detail + "; also " + DeadLetterPolicy.problems(r.problems()));
        }
        reject(ctx, d, DecodeProblem.Kind.TEMPLATE_MISSING.name(), detail);
        return true;
    }

    /** A datagram with problems that mean part of it was not processed, if it has any. */
    boolean notProcessed(DecodeRawFlowFunction.Context ctx, RawDatagram d, DecodedDatagram r) {
        String reason = DeadLetterPolicy.reason(r.problemCounts(), r.problems());
        if (reason == null) {
            return false;
        }
        reject(ctx, d, reason, DeadLetterPolicy.detail(r.problems(), r.records().size()));
        return true;
    }

    /** Reason of a datagram whose flows ended outside the event-time window (policy reject). */
    static final String EVENT_TIME_OUT_OF_RANGE = "EVENT_TIME_OUT_OF_RANGE";

    /** A datagram with flows dropped for ending outside the event-time window. */
    void outOfRange(DecodeRawFlowFunction.Context ctx, RawDatagram d, int dropped, int emitted) {
        reject(
                ctx,
                d,
                EVENT_TIME_OUT_OF_RANGE,
                dropped
                        + " records ended outside the event-time window around the receive time "
                        + d.receivedMillis()
                        + " and were dropped; "
                        + emitted
                        + " records of this datagram were emitted");
    }

    void reject(DecodeRawFlowFunction.Context ctx, RawDatagram d, String reason, String detail) {
        rejected.inc();
        ctx.output(DecodeOutputs.REJECTED, new RejectedDatagram(d, reason, detail));
    }
}
