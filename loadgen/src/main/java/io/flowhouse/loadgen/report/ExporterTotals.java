// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.report;

import io.flowhouse.loadgen.export.CounterTotals;
import io.flowhouse.loadgen.export.ExportDatagram;

/**
 * Exact counts for one simulated exporter. Mutable, updated by the single sending thread; read a
 * consistent copy with {@link #copy()} from other threads only after the run.
 */
public final class ExporterTotals {
    final int index;
    final String protocol;
    final long domainId;
    String source = "";
    long datagrams;
    long flows;
    long packets;
    long bytes;
    long wireBytes;
    long templateRecords;
    long optionsRecords;
    long malformed;
    long malformedBytes;
    long sendErrors;
    long gaps;
    long missingSequence;
    long lastSequence;
    CounterTotals counters = CounterTotals.NONE;

    public ExporterTotals(int index, String protocol, long domainId) {
        this.index = index;
        this.protocol = protocol;
        this.domainId = domainId;
    }

    /** Counts a datagram that was sent (or written) successfully. */
    public void sent(ExportDatagram d) {
        if (d.malformed()) {
            malformed++;
            malformedBytes += d.length();
            return;
        }
        datagrams++;
        flows += d.flows().size();
        packets += d.packets();
        bytes += d.bytes();
        wireBytes += d.length();
        templateRecords += d.templateRecords();
        optionsRecords += d.optionsRecords();
        if (d.counters().samples() > 0) {
            counters = counters.plus(d.counters());
        }
    }

    public void sendError() {
        sendErrors++;
    }

    public void source(String s) {
        this.source = s;
    }

    public void sequence(long lastSequence, long gaps, long missingSequence) {
        this.lastSequence = lastSequence;
        this.gaps = gaps;
        this.missingSequence = missingSequence;
    }

    public int index() {
        return index;
    }

    public String protocol() {
        return protocol;
    }

    public long domainId() {
        return domainId;
    }

    public String source() {
        return source;
    }

    /** Well-formed datagrams delivered to the sink. */
    public long datagrams() {
        return datagrams;
    }

    public long flows() {
        return flows;
    }

    public long packets() {
        return packets;
    }

    public long bytes() {
        return bytes;
    }

    /** UDP payload bytes of the well-formed datagrams. */
    public long wireBytes() {
        return wireBytes;
    }

    public long templateRecords() {
        return templateRecords;
    }

    public long optionsRecords() {
        return optionsRecords;
    }

    public long malformed() {
        return malformed;
    }

    public long malformedBytes() {
        return malformedBytes;
    }

    public long sendErrors() {
        return sendErrors;
    }

    public long gaps() {
        return gaps;
    }

    public long missingSequence() {
        return missingSequence;
    }

    public long lastSequence() {
        return lastSequence;
    }

    /** The sFlow counter samples delivered, summed. */
    public CounterTotals counters() {
        return counters;
    }

    public ExporterTotals copy() {
        ExporterTotals c = new ExporterTotals(index, protocol, domainId);
        c.source = source;
        c.datagrams = datagrams;
        c.flows = flows;
        c.packets = packets;
        c.bytes = bytes;
        c.wireBytes = wireBytes;
        c.templateRecords = templateRecords;
        c.optionsRecords = optionsRecords;
        c.malformed = malformed;
        c.malformedBytes = malformedBytes;
        c.sendErrors = sendErrors;
        c.gaps = gaps;
        c.missingSequence = missingSequence;
        c.lastSequence = lastSequence;
        c.counters = counters;
        return c;
    }
}
