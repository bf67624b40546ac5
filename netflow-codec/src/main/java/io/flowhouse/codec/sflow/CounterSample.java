// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeProblem;

/**
 * {@code counters_sample} (sample 0:2) and {@code counters_sample_expanded} (0:4): a data source's
 * counter records. Generic interface (0:1) and Ethernet (0:2) counters become one {@link
 * InterfaceCounters}; other records (OVS's 1004/1005/2203/2207, host and processor counters) are
 * skipped by their length and counted. Holds reusable scratch: one per decoder.
 */
final class CounterSample {

    static final int FORMAT = 2;

    static final int EXPANDED_FORMAT = 4;

    /** sequence, source_id, record count. */
    static final int SIZE = 12;

    /** sequence, source type, source index, record count. */
    static final int EXPANDED_SIZE = 16;

    private final RecordWalk records = new RecordWalk();
    private GenericInterfaceCounters generic;
    private EthernetInterfaceCounters ethernet;

    /**
     * Decodes the sample body at {@code at} ({@code len} bytes).
     *
     * @return its interface counters, or null if it held none (or is too short)
     */
    InterfaceCounters decode(
            byte[] b,
            int at,
            int len,
            boolean expanded,
            SflowDecoder.DatagramFacts d,
            ProblemTally t) {
        int fixed = expanded ? EXPANDED_SIZE : SIZE;
        if (len < fixed) {
            DecodeProblem.Kind k = DecodeProblem.Kind.RECORD_TRUNCATED;
            t.add(
                    k,
                    t.seen(k)
                            ? null
                            : "counter sample of " + len + " bytes (expected: >= " + fixed + ")");
            return null;
        }
        long sequence = Xdr.u32(b, at);
        int sourceClass;
        long sourceIndex;
        if (expanded) {
            sourceClass = FlowRecords.u31(b, at + 4);
            sourceIndex = Xdr.u32(b, at + 8);
        } else {
            long source = Xdr.u32(b, at + 4);
            sourceClass = (int) (source >>> 24);
            sourceIndex = source & 0x00ff_ffffL;
        }
        long count = Xdr.u32(b, at + fixed - 4);
        generic = null;
        ethernet = null;
        RecordWalk w = records;
        w.start(at + fixed, at + len, count);
        while (w.next(b, t, "counter record")) {
            record(b, w.format(), w.at(), w.length(), t);
        }
        if (generic == null && ethernet == null) {
            return null;
        }
        InterfaceCounters c =
                new InterfaceCounters(
                        d.agentAddress,
                        d.subAgentId,
                        d.exporterAddress,
                        d.exporterPort,
                        d.sequenceNumber,
                        d.uptimeMillis,
                        d.receivedMillis,
                        sequence,
                        sourceClass,
                        sourceIndex,
                        generic,
                        ethernet);
        generic = null;
        ethernet = null;
        return c;
    }

    private void record(byte[] b, int dataFormat, int at, int len, ProblemTally t) {
        switch (dataFormat) {
            case GenericInterfaceCounters.FORMAT:
                if (len < GenericInterfaceCounters.SIZE) {
                    FlowRecords.tooShort(t, dataFormat, len, GenericInterfaceCounters.SIZE);
                } else {
                    generic = GenericInterfaceCounters.read(b, at);
                }
                break;
            case EthernetInterfaceCounters.FORMAT:
                if (len < EthernetInterfaceCounters.SIZE) {
                    FlowRecords.tooShort(t, dataFormat, len, EthernetInterfaceCounters.SIZE);
                } else {
                    ethernet = EthernetInterfaceCounters.read(b, at);
                }
                break;
            default:
                DecodeProblem.Kind k = DecodeProblem.Kind.UNKNOWN_RECORD_FORMAT;
                t.add(
                        k,
                        t.seen(k)
                                ? null
                                : "counter record "
                                        + FlowRecords.format(dataFormat)
                                        + " of "
                                        + len
                                        + " bytes skipped");
        }
    }
}
