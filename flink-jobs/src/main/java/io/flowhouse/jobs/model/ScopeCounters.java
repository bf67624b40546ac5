// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

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

    /** Receive time of the latest datagram counted; the row version of the minute. */
    public long lastReceivedMillis;

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
        c.lastReceivedMillis = lastReceivedMillis;
        return c;
    }
}
