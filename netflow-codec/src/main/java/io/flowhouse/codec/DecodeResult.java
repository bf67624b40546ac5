// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.sflow.SflowDatagram;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.template.TemplateKey;
import io.flowhouse.codec.template.TemplateScope;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * What one datagram decoded to: its header facts, flow records, templates learned and withdrawn,
 * and the problems met on the way.
 *
 * @param version 5, 9 or 10; {@link FlowRecord#VERSION_SFLOW5} for sFlow v5
 * @param observationDomainId IPFIX observation domain / v9 source id / v5 engine type<<8|engine id
 *     / sFlow sub-agent id
 * @param sequenceNumber header sequence number (uint32; sFlow: the datagram sequence)
 * @param exportTimeMillis header export time, epoch ms (sFlow has none: the receive time)
 * @param headerCount the header's record count (v5, v9; sFlow: samples); -1 for IPFIX
 * @param sysUptimeMillis header sysUpTime in ms (v5, v9, sFlow; uint32); -1 for IPFIX
 * @param scope template scope of the message (v9, IPFIX); null for v5
 * @param records the flow records, in wire order
 * @param learned templates and options templates learned (new, replaced or refreshed)
 * @param withdrawn templates withdrawn (IPFIX)
 * @param optionsRecords options data records decoded (not flows)
 * @param problems details of what was wrong but did not stop decoding: the first problem of each
 *     kind, at most {@link #MAX_PROBLEM_DETAILS}; {@code problemCounts} counts them all
 * @param problemCounts every problem, counted by kind
 * @param missingTemplateIds ids of data sets whose template was unknown, each once, in wire order;
 *     at most {@link #MAX_MISSING_TEMPLATE_IDS} (the {@code TEMPLATE_MISSING} count has them all)
 * @param sflow the sFlow datagram's own facts (agent, counter samples); null for NetFlow/IPFIX
 */
public record DecodeResult(
        int version,
        long observationDomainId,
        long sequenceNumber,
        long exportTimeMillis,
        int headerCount,
        long sysUptimeMillis,
        TemplateScope scope,
        List<FlowRecord> records,
        List<Template> learned,
        List<TemplateKey> withdrawn,
        int optionsRecords,
        List<DecodeProblem> problems,
        ProblemCounts problemCounts,
        List<Integer> missingTemplateIds,
        SflowDatagram sflow) {

    /**
     * Problem details kept per datagram. A datagram can hold thousands of problems (one per 4-byte
     * set); they are all counted, but only this many are described, so a hostile datagram costs
     * counting, not a list of messages as long as itself.
     */
    public static final int MAX_PROBLEM_DETAILS = 8;

    /** Distinct missing template ids kept per datagram (the job names them in a dead letter). */
    public static final int MAX_MISSING_TEMPLATE_IDS = 16;

    /** Wraps the lists read-only without copying them (the decoders hand over fresh lists). */
    public DecodeResult {
        records = readOnly(records);
        learned = readOnly(learned);
        withdrawn = readOnly(withdrawn);
        problems = readOnly(problems);
        missingTemplateIds = readOnly(missingTemplateIds);
    }

    /** Problems of one kind in this datagram (all of them, not only those described). */
    public int problemCount(DecodeProblem.Kind kind) {
        return problemCounts.count(kind);
    }

    private static <T> List<T> readOnly(List<T> l) {
        if (l instanceof Records) {
            return l;
        }
        return l.isEmpty() ? List.of() : Collections.unmodifiableList(l);
    }

    /** A builder's records (or templates), read-only, without a copy or a second wrapper. */
    private static final class Records<T> extends AbstractList<T> implements RandomAccess {
        private final T[] elements;
        private final int size;

        Records(T[] elements, int size) {
            this.elements = elements;
            this.size = size;
        }

        @Override
        public T get(int index) {
            return elements[Objects.checkIndex(index, size)];
        }

        @Override
        public int size() {
            return size;
        }
    }

    /**
     * How far this message advances its sequence number: v5 counts flows, v9 counts export packets,
     * IPFIX counts data records (options data records included), sFlow counts datagrams.
     */
    public long sequenceUnits() {
        return switch (version) {
            case 5 -> headerCount;
            case 9, FlowRecord.VERSION_SFLOW5 -> 1L;
            default -> records.size() + (long) optionsRecords;
        };
    }

    private static final int KIND_COUNT = DecodeProblem.Kind.values().length;

    /** Mutable collector used by the decoders. Not thread-safe. */
    public static final class Builder {
        int version;
        long observationDomainId;
        long sequenceNumber;
        long exportTimeMillis;
        int headerCount = -1;
        long sysUptimeMillis = -1L;
        TemplateScope scope;
        private FlowRecord[] records;
        private int recordCount;
        private Template[] learned;
        private int learnedCount;
        List<TemplateKey> withdrawn = List.of();
        int optionsRecords;
        List<DecodeProblem> problems = List.of();
        private int[] problemCounts;
        private int[] missing;
        private int missingCount;
        SflowDatagram sflow;

        public Builder(int expectedRecords) {
            records = new FlowRecord[Math.max(1, Math.min(expectedRecords, 1024))];
        }

        /**
         * Empties this builder for the next message, so a decoder can keep one per thread instead
         * of allocating one per datagram. The lists handed to a built result are never reused.
         */
        public Builder reset(int expectedRecords) {
            version = 0;
            observationDomainId = 0L;
            sequenceNumber = 0L;
            exportTimeMillis = 0L;
            headerCount = -1;
            sysUptimeMillis = -1L;
            scope = null;
            records = new FlowRecord[Math.max(1, Math.min(expectedRecords, 1024))];
            recordCount = 0;
            learned = null;
            learnedCount = 0;
            withdrawn = List.of();
            optionsRecords = 0;
            problems = List.of();
            problemCounts = null;
            missing = null;
            missingCount = 0;
            sflow = null;
            return this;
        }

        public Builder header(
                int version,
                long observationDomainId,
                long sequenceNumber,
                long exportTimeMillis,
                int headerCount,
                long sysUptimeMillis) {
            this.version = version;
            this.observationDomainId = observationDomainId;
            this.sequenceNumber = sequenceNumber;
            this.exportTimeMillis = exportTimeMillis;
            this.headerCount = headerCount;
            this.sysUptimeMillis = sysUptimeMillis;
            return this;
        }

        public Builder sflow(SflowDatagram s) {
            this.sflow = s;
            return this;
        }

        public Builder scope(TemplateScope s) {
            this.scope = s;
            return this;
        }

        public void record(FlowRecord r) {
            if (recordCount == records.length) {
                records = Arrays.copyOf(records, records.length * 2);
            }
            records[recordCount++] = r;
        }

        public int recordCount() {
            return recordCount;
        }

        public void learned(Template t) {
            if (learned == null) {
                learned = new Template[4];
            } else if (learnedCount == learned.length) {
                learned = Arrays.copyOf(learned, learnedCount * 2);
            }
            learned[learnedCount++] = t;
        }

        public int learnedCount() {
            return learnedCount;
        }

        public void withdrawn(TemplateKey k) {
            if (withdrawn.isEmpty()) {
                withdrawn = new ArrayList<>(2);
            }
            withdrawn.add(k);
        }

        public void optionsRecord() {
            optionsRecords++;
        }

        public int optionsRecordCount() {
            return optionsRecords;
        }

        /**
         * Counts one problem of {@code kind}. Returns true when the caller should describe it with
         * {@link #describe} (the first of its kind, while fewer than {@link #MAX_PROBLEM_DETAILS}
         * are described); otherwise the message need not even be built.
         */
        public boolean count(DecodeProblem.Kind kind) {
            if (problemCounts == null) {
                problemCounts = new int[KIND_COUNT];
            }
            return problemCounts[kind.ordinal()]++ == 0 && problems.size() < MAX_PROBLEM_DETAILS;
        }

        /** Keeps the detail of a problem already {@link #count counted}. */
        public void describe(DecodeProblem.Kind kind, String message, int templateId) {
            if (problems.size() >= MAX_PROBLEM_DETAILS) {
                return;
            }
            if (problems.isEmpty()) {
                problems = new ArrayList<>(2);
            }
            problems.add(new DecodeProblem(kind, message, templateId));
        }

        /**
         * Counts a problem and keeps its detail if it is the first of its kind. For problems that
         * can repeat within a datagram, prefer {@link #count} and build the message only when it
         * returns true.
         */
        public void problem(DecodeProblem.Kind kind, String message, int templateId) {
            if (count(kind)) {
                describe(kind, message, templateId);
            }
        }

        /**
         * Counts {@code n} problems of {@code kind} found by a decoder that tallies them itself,
         * and keeps {@code message} as their detail if they are the first of their kind.
         */
        public void problems(DecodeProblem.Kind kind, int n, String message, int templateId) {
            if (n <= 0) {
                return;
            }
            if (count(kind)) {
                describe(kind, message, templateId);
            }
            problemCounts[kind.ordinal()] += n - 1;
        }

        /** Problems of one kind counted so far. */
        public int problemCount(DecodeProblem.Kind kind) {
            return problemCounts == null ? 0 : problemCounts[kind.ordinal()];
        }

        /**
         * Counts a {@code TEMPLATE_MISSING} data set and remembers its template id once. Returns
         * true when the problem should be described (see {@link #count}).
         */
        public boolean missingTemplate(int templateId) {
            if (missing == null) {
                missing = new int[MAX_MISSING_TEMPLATE_IDS];
            }
            boolean seen = false;
            for (int i = 0; i < missingCount; i++) {
                if (missing[i] == templateId) {
                    seen = true;
                    break;
                }
            }
            if (!seen && missingCount < missing.length) {
                missing[missingCount++] = templateId;
            }
            return count(DecodeProblem.Kind.TEMPLATE_MISSING);
        }

        public DecodeResult build() {
            return new DecodeResult(
                    version,
                    observationDomainId,
                    sequenceNumber,
                    exportTimeMillis,
                    headerCount,
                    sysUptimeMillis,
                    scope,
                    recordCount == 0 ? List.of() : new Records<>(records, recordCount),
                    learnedCount == 0 ? List.of() : new Records<>(learned, learnedCount),
                    withdrawn,
                    optionsRecords,
                    problems,
                    problemCounts == null ? ProblemCounts.NONE : ProblemCounts.of(problemCounts),
                    missingIds(),
                    sflow);
        }

        private List<Integer> missingIds() {
            if (missingCount == 0) {
                return List.of();
            }
            Integer[] ids = new Integer[missingCount];
            for (int i = 0; i < missingCount; i++) {
                ids[i] = missing[i];
            }
            return List.of(ids);
        }
    }
}
