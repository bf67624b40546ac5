// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import java.util.HashMap;
import java.util.Map;

/**
 * Sequence-number accounting per exporter, version and observation domain. What a unit is depends
 * on the protocol: NetFlow v5 counts flows, v9 counts export packets, IPFIX counts data records
 * (RFC 7011 section 3.1). Gaps become lost units, late arrivals are counted and taken back from the
 * loss, and a jump beyond {@link #RESET_THRESHOLD} is an exporter restart, not a loss. Pure data,
 * no clock; not thread-safe (one per decoding thread or per Flink key).
 */
public final class SequenceTracker {

    /**
     * A forward jump this large (or a backward one) is taken as a restart of the exporter's counter
     * rather than as loss: 2^20 records is more than any exporter sends between two datagrams.
     */
    public static final long RESET_THRESHOLD = 1L << 20;

    /** Most streams tracked; further streams are counted in {@link #untrackedStreams()}. */
    public static final int MAX_STREAMS = 65_536;

    /**
     * One sequence stream.
     *
     * @param exporter the exporter
     * @param version 5, 9 or 10
     * @param observationDomainId domain / source id / v5 engine
     */
    public record StreamKey(ExporterKey exporter, int version, long observationDomainId) {}

    /** What one observation was. */
    public enum Outcome {
        FIRST,
        IN_ORDER,
        GAP,
        LATE,
        RESET
    }

    /**
     * Result of one observation.
     *
     * @param outcome what it was
     * @param missing units missing before this datagram (GAP), else 0
     */
    public record Observation(Outcome outcome, long missing) {}

    /**
     * Counters of one stream.
     *
     * @param key the stream
     * @param datagrams datagrams observed
     * @param units units received (flows, packets or data records, per version)
     * @param lostUnits units missing (gaps minus late arrivals): lost datagrams for v9, lost
     *     records for v5 and IPFIX
     * @param gaps gaps seen
     * @param late datagrams that arrived after a later one
     * @param resets counter restarts
     * @param expectedNext the next sequence number expected (uint32)
     */
    public record Stats(
            StreamKey key,
            long datagrams,
            long units,
            long lostUnits,
            long gaps,
            long late,
            long resets,
            long expectedNext) {}

    /**
     * One step of a stream, as a pure function of its state: {@link #observe} keeps the state in
     * maps, the Flink decode step in keyed state.
     *
     * @param outcome what the datagram was
     * @param missing units missing before it (GAP), else 0
     * @param expectedNext the sequence number expected after it (uint32), or -1 when unknown
     */
    public record Step(Outcome outcome, long missing, long expectedNext) {}

    /**
     * The rules of one observation. A forward jump below {@link #RESET_THRESHOLD} is a gap; a step
     * backwards shorter than {@code lateWindow} is a late arrival (the expected number stays); any
     * other step is a restart, after which the stream continues from this datagram.
     *
     * @param expected the sequence number expected (uint32), or -1 when unknown (the first
     *     datagram, or the one after a datagram of unknown length): FIRST
     * @param sequence the header sequence number (uint32)
     * @param units how far this datagram advances the sequence, or -1 when unknown (the next
     *     datagram then only resynchronises)
     * @param lateWindow steps back shorter than this are late arrivals: {@link #observe} uses
     *     {@link #RESET_THRESHOLD}; 0 takes every step back as a restart
     */
    public static Step step(long expected, long sequence, long units, long lateWindow) {
        long next = units < 0 ? -1L : (sequence + units) & 0xffff_ffffL;
        if (expected < 0) {
            return new Step(Outcome.FIRST, 0, next);
        }
        long diff = (int) ((sequence - expected) & 0xffff_ffffL); // signed 32-bit distance
        if (diff == 0) {
            return new Step(Outcome.IN_ORDER, 0, next);
        }
        if (diff > 0 && diff < RESET_THRESHOLD) {
            return new Step(Outcome.GAP, diff, next);
        }
        if (diff < 0 && -diff < lateWindow) {
            return new Step(Outcome.LATE, 0, expected);
        }
        return new Step(Outcome.RESET, 0, next);
    }

    private static final class State {
        long datagrams;
        long units;
        long lost;
        long gaps;
        long late;
        long resets;
        long expected;
    }

    private final Map<StreamKey, State> streams = new HashMap<>();
    private long untracked;

    /** Observes a decoded datagram. */
    public Observation observe(ExporterKey exporter, DecodeResult r) {
        return observe(
                new StreamKey(exporter, r.version(), r.observationDomainId()),
                r.sequenceNumber(),
                r.sequenceUnits());
    }

    /**
     * Observes one datagram's sequence number.
     *
     * @param sequence the header sequence number (uint32)
     * @param units how far this datagram advances the sequence
     */
    public Observation observe(StreamKey key, long sequence, long units) {
        State s = streams.get(key);
        if (s == null) {
            if (streams.size() >= MAX_STREAMS) {
                untracked++;
                return new Observation(Outcome.FIRST, 0);
            }
            s = new State();
            streams.put(key, s);
            s.datagrams = 1;
            s.units = units;
            s.expected = (sequence + units) & 0xffff_ffffL;
            return new Observation(Outcome.FIRST, 0);
        }
        s.datagrams++;
        s.units += units;
        Step step = step(s.expected, sequence, units, RESET_THRESHOLD);
        switch (step.outcome()) {
            case GAP:
                s.gaps++;
                s.lost += step.missing();
                break;
            case LATE:
                s.late++;
                s.lost = Math.max(0, s.lost - units);
                break;
            case RESET:
                s.resets++;
                break;
            default:
                break;
        }
        s.expected = step.expectedNext();
        return new Observation(step.outcome(), step.missing());
    }

    public Stats stats(StreamKey key) {
        State s = streams.get(key);
        return s == null
                ? new Stats(key, 0, 0, 0, 0, 0, 0, 0)
                : new Stats(
                        key, s.datagrams, s.units, s.lost, s.gaps, s.late, s.resets, s.expected);
    }

    /** A copy of every stream's counters. */
    public Map<StreamKey, Stats> snapshot() {
        Map<StreamKey, Stats> m = new HashMap<>();
        for (StreamKey k : streams.keySet()) {
            m.put(k, stats(k));
        }
        return m;
    }

    /** Units lost over all streams. */
    public long totalLost() {
        long n = 0;
        for (State s : streams.values()) {
            n += s.lost;
        }
        return n;
    }

    public long untrackedStreams() {
        return untracked;
    }
}
