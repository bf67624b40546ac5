// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.stats;

import io.flowhouse.codec.SequenceTracker;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.util.Arrays;
import java.util.Map;

/**
 * Counters of one template scope (exporter, version, observation domain) in keyed state: the
 * sequence number expected next, and the counts of the current minute (by datagram receive time)
 * that become one {@link ExporterStats} row. A mutable Flink POJO: read, change, write back.
 */
public final class ScopeCounters {

    /** Agent streams a scope follows the sequences of; the least recently received is dropped. */
    public static final int MAX_STREAMS = 4;

    /**
     * Sequence number expected next (uint32), or -1 when unknown (first datagram, resync): of the
     * datagrams without a stamp.
     */
    public long nextSequence = -1L;

    /** Agent streams ({@code streamId}) of stamped datagrams, least recently received first. */
    public long[] streams = NO_LONGS;

    /** Each stream's sequence number expected next (uint32, or -1); same index as the stream. */
    public long[] streamNextSequence = NO_LONGS;

    /** Each stream's highest place (stamp sequence) counted; same index as the stream. */
    public long[] streamLastPlace = NO_LONGS;

    /** Start of the minute counted below, epoch ms; 0 before the first datagram. */
    public long minuteMillis;

    public long datagrams;
    public long datagramBytes;
    public long records;
    public long templateRecords;
    public long sequenceGaps;
    public long lostDatagrams;
    public long lostRecords;
    public long sequenceResets;
    public long recordsBeforeTemplate;
    public long rejectedRecords;

    /** Datagrams that arrived again (re-sends, by their stamp) and were not counted above. */
    public long duplicateDatagrams;

    /** sFlow: flow samples missing by their sources' sample sequence numbers. */
    public long lostSamples;

    /** sFlow: increase of the sources' drops counters (samples the agent could not send). */
    public long sampleDrops;

    /** sFlow data sources ({@code class << 32 | index}) with accounting, ascending. */
    public long[] sflowSources = NO_LONGS;

    /** Each source's sample sequence expected next (uint32); same index as the source. */
    public long[] sflowNextSample = NO_LONGS;

    /** Each source's last drops counter (uint32); same index as the source. */
    public long[] sflowDrops = NO_LONGS;

    /** Receive time of the latest datagram counted. */
    public long lastReceivedMillis;

    /**
     * The version of the minute's row ({@code updated_at}): {@link #lastReceivedMillis}, or one
     * more than before when a change leaves that where it was (a datagram drained from a spool
     * behind newer ones, a re-send, records released), so that every change of the counts raises
     * it. Of two rows of one minute ClickHouse keeps the higher version and, of equal ones, the
     * last inserted; after a job failover the failed attempt's in-flight insert can land after the
     * restored job's rows, so an older row with the same version could win over the complete one. A
     * function of the counted input, so a replay after a failover gives the same versions.
     */
    public long rowVersion;

    /** Whether the counts changed since the minute's row was last emitted. */
    public boolean changed;

    /** Processing time of the latest datagram counted: the scope is forgotten when idle. */
    public long lastActiveMillis;

    private static final long[] NO_LONGS = new long[0];

    public ScopeCounters() {}

    /** Starts a new minute: keeps the sequence state, zeroes the counts. */
    public void startMinute(long minute) {
        minuteMillis = minute;
        datagrams = 0;
        datagramBytes = 0;
        records = 0;
        templateRecords = 0;
        sequenceGaps = 0;
        lostDatagrams = 0;
        lostRecords = 0;
        sequenceResets = 0;
        recordsBeforeTemplate = 0;
        rejectedRecords = 0;
        duplicateDatagrams = 0;
        lostSamples = 0;
        sampleDrops = 0;
        rowVersion = 0;
    }

    /** The counts of the minute changed: marks it for output and raises its version. */
    public void markChanged() {
        changed = true;
        rowVersion = Math.max(rowVersion + 1, lastReceivedMillis);
    }

    /** Whether this minute has anything to report. */
    public boolean counted() {
        return datagrams > 0 || duplicateDatagrams > 0;
    }

    /**
     * Counts one datagram's sequence number by the codec's rules ({@link SequenceTracker#step}):
     * NetFlow v5 counts flows sent before this datagram, v9 counts export datagrams (RFC 3954
     * §5.1), sFlow v5 counts datagrams per agent and sub-agent, IPFIX counts data records sent
     * before this message (RFC 7011 §3.1), all modulo 2^32; a forward jump below {@link
     * SequenceTracker#RESET_THRESHOLD} is loss, anything else a restart. Every step back is a
     * restart here (late window 0): one exporter's datagrams reach the job in the order the agent
     * received them, and an exporter that restarts from a small counter must count as a restart,
     * not as a run of late datagrams.
     *
     * @param version 5, 9, 10 or {@link FlowRecord#VERSION_SFLOW5}
     * @param sequence the header's sequence number (uint32)
     * @param units how far the datagram advances the sequence, or -1 if unknown (a data set whose
     *     template is missing): the next datagram then only resynchronises
     */
    public void countSequence(int version, long sequence, long units) {
        nextSequence = count(version, nextSequence, sequence, units);
    }

    /**
     * Counts one datagram's sequence number in the agent stream it was received in ({@code
     * streamId}, 0 for a datagram without a stamp: {@link #countSequence(int, long, long)}), in the
     * order the agent received them ({@code place}, the stamp's sequence). The agent writes live
     * datagrams while its spool drains older ones, its own run's and an earlier run's, so the job
     * sees streams interleaved and a stream's datagrams out of their receive order; one sequence
     * state over everything saw every step back to an older datagram as a restart. A datagram whose
     * place is behind the highest counted in its stream is not in the sequence accounting (it is no
     * restart: the agent received it before). A stream's first datagram sets its baseline: what an
     * exporter sent while no agent run received it is not a gap here, and a restart in that time
     * not a reset (the agent's own counters show its outage). At most {@link #MAX_STREAMS} streams
     * per scope are followed; a forgotten one starts from a new baseline.
     */
    public void countSequence(int version, long sequence, long units, long streamId, long place) {
        if (streamId == 0L) {
            countSequence(version, sequence, units);
            return;
        }
        int at = -1;
        for (int i = 0; i < streams.length; i++) {
            if (streams[i] == streamId) {
                at = i;
                break;
            }
        }
        if (at >= 0 && place <= streamLastPlace[at]) {
            return; // received before what was counted last: out of the agent's order
        }
        long expected = at < 0 ? -1L : streamNextSequence[at];
        int n = streams.length;
        if (at < 0 && n < MAX_STREAMS) {
            streams = Arrays.copyOf(streams, n + 1);
            streamNextSequence = Arrays.copyOf(streamNextSequence, n + 1);
            streamLastPlace = Arrays.copyOf(streamLastPlace, n + 1);
            at = n;
            n++;
        } else if (at < 0) {
            at = 0; // the least recently received stream is forgotten
        }
        // Most recently received last.
        System.arraycopy(streams, at + 1, streams, at, n - 1 - at);
        System.arraycopy(streamNextSequence, at + 1, streamNextSequence, at, n - 1 - at);
        System.arraycopy(streamLastPlace, at + 1, streamLastPlace, at, n - 1 - at);
        streams[n - 1] = streamId;
        streamNextSequence[n - 1] = count(version, expected, sequence, units);
        streamLastPlace[n - 1] = place;
    }

    private long count(int version, long expected, long sequence, long units) {
        SequenceTracker.Step step = SequenceTracker.step(expected, sequence, units, 0);
        if (step.outcome() == SequenceTracker.Outcome.GAP) {
            sequenceGaps++;
            if (version == 9 || version == FlowRecord.VERSION_SFLOW5) {
                lostDatagrams += step.missing();
            } else {
                lostRecords += step.missing();
            }
        } else if (step.outcome() == SequenceTracker.Outcome.RESET) {
            sequenceResets++;
        }
        return step.expectedNext();
    }

    /**
     * Counts an sFlow datagram's flow samples by their data sources: a forward jump of a source's
     * sample sequence number is loss ({@link #lostSamples}), a step back a restart of the agent (no
     * loss; its drops counter starts again too), and each increase of a source's drops counter is
     * added to {@link #sampleDrops}. A source seen first only sets its baseline. At most {@code
     * maxSources} sources are kept; samples of further ones are not accounted.
     *
     * @param samples triples of source, sample sequence and drops, as {@link
     *     io.flowhouse.jobs.decode.DatagramObservation#sflowSamples()}
     * @return samples not accounted because their source is beyond the bound
     */
    public int countSflowSamples(long[] samples, int maxSources) {
        int untracked = 0;
        for (int i = 0; i + 2 < samples.length; i += 3) {
            long source = samples[i];
            long sequence = samples[i + 1];
            long drops = samples[i + 2];
            int at = Arrays.binarySearch(sflowSources, source);
            if (at < 0) {
                if (sflowSources.length >= maxSources) {
                    untracked++;
                    continue;
                }
                at = -at - 1;
                sflowSources = insert(sflowSources, at, source);
                sflowNextSample = insert(sflowNextSample, at, (sequence + 1) & 0xffff_ffffL);
                sflowDrops = insert(sflowDrops, at, drops);
                continue;
            }
            SequenceTracker.Step step = SequenceTracker.step(sflowNextSample[at], sequence, 1, 0);
            if (step.outcome() == SequenceTracker.Outcome.GAP) {
                lostSamples += step.missing();
            }
            sflowNextSample[at] = step.expectedNext();
            if (step.outcome() != SequenceTracker.Outcome.RESET && drops >= sflowDrops[at]) {
                sampleDrops += drops - sflowDrops[at];
            }
            sflowDrops[at] = drops;
        }
        return untracked;
    }

    private static long[] insert(long[] a, int at, long v) {
        long[] b = new long[a.length + 1];
        System.arraycopy(a, 0, b, 0, at);
        b[at] = v;
        System.arraycopy(a, at, b, at + 1, a.length - at);
        return b;
    }

    /** This minute's counts as the {@code exporter_stats} row of one exporter scope. */
    public ExporterStats toStats(
            IpAddress exporter, int port, int version, long domain, Map<String, Long> problems) {
        return new ExporterStats(
                minuteMillis,
                exporter,
                port,
                domain,
                version,
                datagrams,
                datagramBytes,
                records,
                templateRecords,
                sequenceGaps,
                lostDatagrams,
                lostRecords,
                sequenceResets,
                recordsBeforeTemplate,
                rejectedRecords,
                duplicateDatagrams,
                lostSamples,
                sampleDrops,
                problems,
                rowVersion);
    }

    public ScopeCounters copy() {
        ScopeCounters c = new ScopeCounters();
        c.nextSequence = nextSequence;
        c.streams = streams.clone();
        c.streamNextSequence = streamNextSequence.clone();
        c.streamLastPlace = streamLastPlace.clone();
        c.minuteMillis = minuteMillis;
        c.datagrams = datagrams;
        c.datagramBytes = datagramBytes;
        c.records = records;
        c.templateRecords = templateRecords;
        c.sequenceGaps = sequenceGaps;
        c.lostDatagrams = lostDatagrams;
        c.lostRecords = lostRecords;
        c.sequenceResets = sequenceResets;
        c.recordsBeforeTemplate = recordsBeforeTemplate;
        c.rejectedRecords = rejectedRecords;
        c.duplicateDatagrams = duplicateDatagrams;
        c.lostSamples = lostSamples;
        c.sampleDrops = sampleDrops;
        c.sflowSources = sflowSources.clone();
        c.sflowNextSample = sflowNextSample.clone();
        c.sflowDrops = sflowDrops.clone();
        c.lastReceivedMillis = lastReceivedMillis;
        c.rowVersion = rowVersion;
        c.changed = changed;
        c.lastActiveMillis = lastActiveMillis;
        return c;
    }
}
