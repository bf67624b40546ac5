// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeProblem.Kind;
import io.flowhouse.codec.ProblemCounts;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Which decode problems send a datagram to {@code flows.rejected}: those that mean part of the
 * datagram was NOT processed. Benign notes (a field skipped for an odd length, padding or trailing
 * bytes, a count hint, an unknown withdrawal, flow times without a time base) are only counted.
 * {@code TEMPLATE_MISSING} has its own path (hold, then dead letter on expiry) and is not here.
 */
final class DeadLetterPolicy {

    /** Problems that mean data was not processed: the datagram is dead-lettered once. */
    static final Set<Kind> NOT_PROCESSED =
            EnumSet.of(
                    Kind.TRUNCATED_HEADER,
                    Kind.UNSUPPORTED_VERSION,
                    Kind.LENGTH_PAST_END,
                    Kind.BAD_RECORD_COUNT,
                    Kind.SET_LENGTH_PAST_END,
                    Kind.ZERO_LENGTH_SET,
                    Kind.RESERVED_SET_ID,
                    Kind.TEMPLATE_INVALID,
                    Kind.FIELD_COUNT_OVERFLOW,
                    Kind.TEMPLATE_FLOOD,
                    Kind.TEMPLATE_TOO_LARGE,
                    Kind.OPTIONS_LIMIT,
                    Kind.RECORD_TRUNCATED);

    /** Longest detail written to a dead letter, in chars. */
    static final int MAX_DETAIL = 1024;

    private DeadLetterPolicy() {}

    /**
     * The reason for a dead letter (the first unprocessed problem's kind among those described,
     * else the first counted in kind order), or null when none.
     */
    static String reason(ProblemCounts counts, List<DecodeProblem> problems) {
        for (DecodeProblem p : problems) {
            if (NOT_PROCESSED.contains(p.kind())) {
                return p.kind().name();
            }
        }
        for (Kind k : NOT_PROCESSED) {
            if (counts.count(k) > 0) {
                return k.name();
            }
        }
        return null;
    }

    /** The unprocessed problems, {@code KIND: message} joined by {@code "; "}. */
    static String problems(List<DecodeProblem> problems) {
        StringBuilder b = new StringBuilder();
        for (DecodeProblem p : problems) {
            if (NOT_PROCESSED.contains(p.kind())) {
                if (b.length() > 0) {
                    b.append("; ");
                }
                b.append(p.kind().name()).append(": ").append(p.message());
                if (b.length() > MAX_DETAIL) {
                    break;
                }
            }
        }
        return b.toString();
    }

    /** The detail of a dead letter: what was emitted, then its problems; bounded. */
    static String detail(List<DecodeProblem> problems, int recordsEmitted) {
        return bound(
                recordsEmitted
                        + " records of this datagram were decoded and emitted; not processed: "
                        + problems(problems));
    }

    /** {@code detail} cut to {@link #MAX_DETAIL} chars. */
    static String bound(String detail) {
        return detail.length() <= MAX_DETAIL ? detail : detail.substring(0, MAX_DETAIL - 3) + "...";
    }
}
