// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.ProblemCounts;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.SflowFields;
import java.util.Arrays;
import java.util.Objects;

/**
 * What the decode step observed of one datagram, for the per-exporter statistics ({@code
 * stats.AggregateExporterStats}): one per datagram that arrives, and one more when a held datagram
 * is released. A flat Flink POJO, emitted in the order the decode step saw things, on the side
 * output {@link DecodeOutputs#OBSERVATIONS}.
 *
 * @param exporter the decode step's key (the exporter that owns the template space)
 * @param kind what happened
 * @param receivedMillis the datagram's receive time (arrivals)
 * @param bytes the datagram's payload size (arrivals)
 * @param version 5, 9 or 10; 0 when the datagram did not decode
 * @param observationDomainId observation domain / source id / v5 engine (uint32); 0 when the
 *     datagram did not decode
 * @param sequenceNumber header sequence number (uint32; {@link Kind#DECODED} and {@link Kind#HELD})
 * @param sequenceUnits how far the datagram advances the sequence, or -1 when unknown (a data set
 *     whose template is missing)
 * @param templateRecords template and options template records the datagram carried
 * @param problems the kinds of decode problem the datagram had, each once
 * @param problemCounts how many problems of each kind in {@code problems} (same index)
 * @param records flow records emitted now
 * @param rejected whether the datagram was sent to the dead-letter topic now
 * @param sflowSamples sFlow v5 (arrivals): per flow sample decoded, in order, three values: its
 *     data source ({@code class << 32 | index}), its sample sequence number and its agent's drops
 *     counter (uint32 each); empty otherwise. At most a third of the datagram's size in values.
 * @param streamId the agent stream the datagram was received in ({@link RawDatagram#streamId()}), 0
 *     when it carries no stamp: the sequence accounting follows each stream on its own
 */
public record DatagramObservation(
        ExporterKey exporter,
        Kind kind,
        long receivedMillis,
        int bytes,
        int version,
        long observationDomainId,
        long sequenceNumber,
        long sequenceUnits,
        int templateRecords,
        DecodeProblem.Kind[] problems,
        int[] problemCounts,
        int records,
        boolean rejected,
        long[] sflowSamples,
        long streamId,
        long streamSequence) {

    /** What happened to the datagram. */
    public enum Kind {
        /** Arrived and decoded; its records were emitted. */
        DECODED,
        /** Arrived and was held for a template that has not come yet; nothing emitted. */
        HELD,
        /** Arrived and did not decode at all ({@code DecodeException}); dead-lettered. */
        UNDECODABLE,
        /** A held datagram released: decoded now, or expired (emitted in part, dead-lettered). */
        RELEASED,
        /**
         * Arrived again (a re-send of a datagram already seen, by its stamp): dropped before
         * decoding; only counted. Version and domain are read from its header.
         */
        DUPLICATE;

        /** Whether the datagram arrived (is counted once, in the minute of its receive time). */
        public boolean arrival() {
            return this != RELEASED && this != DUPLICATE;
        }
    }

    private static final DecodeProblem.Kind[] NO_PROBLEMS = new DecodeProblem.Kind[0];
    private static final int[] NO_COUNTS = new int[0];
    private static final long[] NO_SAMPLES = new long[0];

    public DatagramObservation {
        Objects.requireNonNull(exporter, "exporter");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(problems, "problems");
        Objects.requireNonNull(problemCounts, "problemCounts");
        Objects.requireNonNull(sflowSamples, "sflowSamples");
        if (problems.length != problemCounts.length) {
            throw new IllegalArgumentException(
                    problems.length + " problem kinds, " + problemCounts.length + " counts");
        }
    }

    /** A datagram that arrived and decoded, held or not. */
    static DatagramObservation arrived(
            ExporterKey key,
            RawDatagram d,
            DecodedDatagram r,
            boolean held,
            int records,
            boolean rejected) {
        return new DatagramObservation(
                key,
                held ? Kind.HELD : Kind.DECODED,
                d.receivedMillis(),
                d.payload().length,
                r.version(),
                r.observationDomainId(),
                r.sequenceNumber(),
                r.missesTemplates() ? -1L : r.sequenceUnits(),
                r.templateRecords(),
                kinds(r.problemCounts()),
                counts(r.problemCounts()),
                records,
                rejected,
                r.version() == FlowRecord.VERSION_SFLOW5 ? sflowSamples(r) : NO_SAMPLES,
                d.streamId(),
                d.stamp() == null ? -1L : d.stamp().sequence());
    }

    /** Each flow sample's source, sample sequence and drops, from its record. */
    private static long[] sflowSamples(DecodedDatagram r) {
        long[] out = new long[3 * r.records().size()];
        int n = 0;
        for (FlowRecord f : r.records()) {
            SflowFields s = f.sflow();
            if (s != null) {
                out[n++] = ((long) s.sourceIdClass() << 32) | s.sourceIdIndex();
                out[n++] = s.sampleSequence();
                out[n++] = s.drops();
            }
        }
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /** A datagram that did not decode at all: counted in version 0, domain 0. */
    static DatagramObservation undecodable(
            ExporterKey key, RawDatagram d, DecodeProblem.Kind problem) {
        return new DatagramObservation(
                key,
                Kind.UNDECODABLE,
                d.receivedMillis(),
                d.payload().length,
                0,
                0L,
                0L,
                -1L,
                0,
                new DecodeProblem.Kind[] {problem},
                new int[] {1},
                0,
                true,
                NO_SAMPLES,
                d.streamId(),
                d.stamp() == null ? -1L : d.stamp().sequence());
    }

    /** A datagram seen before: its scope from its header (version 0 when not NetFlow/IPFIX). */
    static DatagramObservation duplicate(ExporterKey key, RawDatagram d) {
        byte[] p = d.payload();
        int version = p.length >= 2 ? ((p[0] & 0xff) << 8) | (p[1] & 0xff) : 0;
        long domain;
        if (version == 5 && p.length >= 22) {
            domain = ((p[20] & 0xffL) << 8) | (p[21] & 0xffL);
        } else if (version == 9 && p.length >= 20) {
            domain = uint32(p, 16);
        } else if (version == 10 && p.length >= 16) {
            domain = uint32(p, 12);
        } else {
            version = 0;
            domain = 0;
        }
        return new DatagramObservation(
                key,
                Kind.DUPLICATE,
                d.receivedMillis(),
                p.length,
                version,
                domain,
                0L,
                -1L,
                0,
                NO_PROBLEMS,
                NO_COUNTS,
                0,
                false,
                NO_SAMPLES,
                d.streamId(),
                d.stamp() == null ? -1L : d.stamp().sequence());
    }

    private static long uint32(byte[] b, int at) {
        return ((b[at] & 0xffL) << 24)
                | ((b[at + 1] & 0xffL) << 16)
                | ((b[at + 2] & 0xffL) << 8)
                | (b[at + 3] & 0xffL);
    }

    /** A held datagram released, with what it emitted. */
    static DatagramObservation released(
            ExporterKey key, RawDatagram d, DecodedDatagram r, int records, boolean rejected) {
        return new DatagramObservation(
                key,
                Kind.RELEASED,
                d.receivedMillis(),
                d.payload().length,
                r.version(),
                r.observationDomainId(),
                r.sequenceNumber(),
                -1L,
                0,
                NO_PROBLEMS,
                NO_COUNTS,
                records,
                rejected,
                NO_SAMPLES,
                d.streamId(),
                d.stamp() == null ? -1L : d.stamp().sequence());
    }

    private static DecodeProblem.Kind[] kinds(ProblemCounts counts) {
        if (counts.isEmpty()) {
            return NO_PROBLEMS;
        }
        return counts.asMap().keySet().toArray(NO_PROBLEMS);
    }

    private static int[] counts(ProblemCounts counts) {
        if (counts.isEmpty()) {
            return NO_COUNTS;
        }
        return counts.asMap().values().stream().mapToInt(Integer::intValue).toArray();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DatagramObservation x
                && exporter.equals(x.exporter)
                && kind == x.kind
                && receivedMillis == x.receivedMillis
                && bytes == x.bytes
                && version == x.version
                && observationDomainId == x.observationDomainId
                && sequenceNumber == x.sequenceNumber
                && sequenceUnits == x.sequenceUnits
                && templateRecords == x.templateRecords
                && Arrays.equals(problems, x.problems)
                && Arrays.equals(problemCounts, x.problemCounts)
                && records == x.records
                && rejected == x.rejected
                && Arrays.equals(sflowSamples, x.sflowSamples)
                && streamId == x.streamId
                && streamSequence == x.streamSequence;
    }

    @Override
    public int hashCode() {
        return 31
                        * Objects.hash(
                                exporter,
                                kind,
                                receivedMillis,
                                version,
                                observationDomainId,
                                sequenceNumber,
                                records,
                                rejected)
                + Arrays.hashCode(problems) * 31
                + Arrays.hashCode(problemCounts);
    }

    @Override
    public String toString() {
        return "DatagramObservation["
                + exporter
                + " "
                + kind
                + " v"
                + version
                + " domain "
                + observationDomainId
                + " seq "
                + sequenceNumber
                + ", "
                + records
                + " records"
                + (rejected ? ", rejected" : "")
                + ", problems "
                + Arrays.toString(problems)
                + " x "
                + Arrays.toString(problemCounts)
                + "]";
    }
}
