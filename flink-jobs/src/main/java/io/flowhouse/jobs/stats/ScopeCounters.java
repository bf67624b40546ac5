// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.stats;

import io.flowhouse.codec.SequenceTracker;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.util.Map;

/**
 * Counters of one template scope (exporter, version, observation domain) in keyed state: the
 * sequence number expected next, and the counts of the current minute (by datagram receive time)
 * that become one {@link ExporterStats} row. A mutable Flink POJO: read, change, write back.
 */
public final class ScopeCounters {

    /** Sequence number expected next (uint32), or -1 when unknown (first datagram, resync). */
    public long nextSequence = -1L;

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

    /** Receive time of the latest datagram counted; the row version of the minute. */
    public long lastReceivedMillis;

    /** Whether the counts changed since the minute's row was last emitted. */
    public boolean changed;

    /** Processing time of the latest datagram counted: the scope is forgotten when idle. */
    public long lastActiveMillis;

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
        SequenceTracker.Step step = SequenceTracker.step(nextSequence, sequence, units, 0);
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
        nextSequence = step.expectedNext();
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
                problems,
                lastReceivedMillis);
    }

    public ScopeCounters copy() {
        ScopeCounters c = new ScopeCounters();
        c.nextSequence = nextSequence;
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
        c.lastReceivedMillis = lastReceivedMillis;
        c.changed = changed;
        c.lastActiveMillis = lastActiveMillis;
        return c;
    }
}
