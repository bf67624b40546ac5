// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.flow.FlowRecord;

/**
 * {@code flow_sample} (sample 0:1) and {@code flow_sample_expanded} (0:3): one sampled packet and
 * its flow records, mapped to one {@link FlowRecord}. Compact samples pack the data source as
 * type:index (8:24 bits) and each interface as format:value (2:30 bits); expanded ones give each
 * part its own word. Holds reusable scratch: one per decoder.
 */
final class FlowSample {

    static final int FORMAT = 1;

    static final int EXPANDED_FORMAT = 3;

    /** sequence, source_id, rate, pool, drops, input, output, record count. */
    static final int SIZE = 32;

    /** sequence, source type and index, rate, pool, drops, input and output as 2 words, count. */
    static final int EXPANDED_SIZE = 44;

    private final FlowSampleState s = new FlowSampleState();
    private final RecordWalk records = new RecordWalk();

    /**
     * Decodes the sample body at {@code at} ({@code len} bytes).
     *
     * @return the flow record, or null if the sample is too short for its fixed part
     */
    FlowRecord decode(
            byte[] b,
            int at,
            int len,
            boolean expanded,
            SflowDecoder.DatagramFacts d,
            int index,
            ProblemTally t) {
        int fixed = expanded ? EXPANDED_SIZE : SIZE;
        if (len < fixed) {
            DecodeProblem.Kind k = DecodeProblem.Kind.RECORD_TRUNCATED;
            t.add(
                    k,
                    t.seen(k)
                            ? null
                            : "flow sample of " + len + " bytes (expected: >= " + fixed + ")");
            return null;
        }
        FlowSampleState s = this.s;
        s.reset();
        s.sampleSequence = Xdr.u32(b, at);
        int p;
        if (expanded) {
            s.sourceIdClass = FlowRecords.u31(b, at + 4);
            s.sourceIdIndex = Xdr.u32(b, at + 8);
            p = at + 12;
        } else {
            long source = Xdr.u32(b, at + 4);
            s.sourceIdClass = (int) (source >>> 24);
            s.sourceIdIndex = source & 0x00ff_ffffL;
            p = at + 8;
        }
        s.samplingRate = Xdr.u32(b, p);
        s.samplePool = Xdr.u32(b, p + 4);
        s.drops = Xdr.u32(b, p + 8);
        p += 12;
        if (expanded) {
            s.inputFormat = FlowRecords.u31(b, p);
            s.inputValue = Xdr.u32(b, p + 4);
            s.outputFormat = FlowRecords.u31(b, p + 8);
            s.outputValue = Xdr.u32(b, p + 12);
            p += 16;
        } else {
            long in = Xdr.u32(b, p);
            long out = Xdr.u32(b, p + 4);
            s.inputFormat = (int) (in >>> 30);
            s.inputValue = in & 0x3fff_ffffL;
            s.outputFormat = (int) (out >>> 30);
            s.outputValue = out & 0x3fff_ffffL;
            p += 8;
        }
        long count = Xdr.u32(b, p);
        RecordWalk w = records;
        w.start(p + 4, at + len, count);
        while (w.next(b, t, "flow record")) {
            record(b, w.format(), w.at(), w.length(), t);
        }
        return s.toRecord(d, index);
    }

    private void record(byte[] b, int dataFormat, int at, int len, ProblemTally t) {
        FlowSampleState s = this.s;
        switch (dataFormat) {
            case SampledHeader.FORMAT:
                SampledHeader.read(b, at, len, s, t);
                break;
            case ExtendedSwitch.FORMAT:
                ExtendedSwitch.read(b, at, len, s, t);
                break;
            case SampledEthernet.FORMAT:
                SampledEthernet.read(b, at, len, s, t);
                break;
            case SampledIpv4.FORMAT:
                SampledIpv4.read(b, at, len, s, t);
                break;
            case SampledIpv6.FORMAT:
                SampledIpv6.read(b, at, len, s, t);
                break;
            case ExtendedRouter.FORMAT:
                ExtendedRouter.read(b, at, len, s, t);
                break;
            case ExtendedGateway.FORMAT:
                ExtendedGateway.read(b, at, len, s, t);
                break;
            default:
                DecodeProblem.Kind k = DecodeProblem.Kind.UNKNOWN_RECORD_FORMAT;
                t.add(
                        k,
                        t.seen(k)
                                ? null
                                : "flow record "
                                        + FlowRecords.format(dataFormat)
                                        + " of "
                                        + len
                                        + " bytes skipped");
        }
    }
}
