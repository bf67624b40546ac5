// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.MalformedSetException;
import io.flowhouse.codec.TruncatedMessageException;
import io.flowhouse.codec.UnsupportedVersionException;
import io.flowhouse.codec.flow.DatagramHeader;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Decodes sFlow v5 datagrams (sflow.org, "sFlow Version 5", XDR encoded): the header with an IPv4
 * or IPv6 agent address, then flow samples and counter samples, compact or expanded. Each flow
 * sample becomes one {@link FlowRecord} (version {@link FlowRecord#VERSION_SFLOW5}); counter
 * samples with interface counters are in {@link SflowDatagram#counters()}. Unknown sample and
 * record formats are skipped by their length and counted.
 *
 * <p>Every length is checked against its enclosing structure before it is used, work is linear in
 * the datagram's size, and what is allocated is bounded by a fixed multiple of it: at most one
 * record per 40-byte flow sample, problems counted per kind (one {@link DecodeProblem} per kind per
 * datagram). Only {@link DecodeException} subtypes are thrown, for an unusable header. Pure: no
 * clock, no logging; the buffer's position and limit are left as they were. Holds reusable scratch,
 * so use one instance per thread.
 */
public final class SflowDecoder {

    /** The datagram version word, a 32-bit 5 (NetFlow v5 starts with a 16-bit 5). */
    public static final int VERSION = 5;

    /**
     * The smallest header: version, address type "unknown" (no address bytes), sub-agent, sequence,
     * uptime, sample count. An IPv4 agent makes it 28 bytes, an IPv6 one 40.
     */
    public static final int MIN_HEADER_SIZE = 24;

    /** Largest datagram (UDP payload limit); the scratch copy never grows beyond it. */
    static final int MAX_DATAGRAM = 0xffff;

    /** The smallest sample that yields a flow record: format, length and a compact flow sample. */
    static final int MIN_FLOW_SAMPLE = 8 + FlowSample.SIZE;

    /**
     * Per-datagram facts every sample's output repeats. One per datagram, not reused: reference
     * stores into a young object cost no G1 card-marking barrier, stores into a long-lived one do
     * (this alone was a tenth of the decode time).
     */
    static final class DatagramFacts {
        final IpAddress agentAddress;
        final long subAgentId;
        final long sequenceNumber;
        final long uptimeMillis;
        final IpAddress exporterAddress;
        final int exporterPort;
        final long receivedMillis;
        final long streamId;
        final long streamSequence;
        private final DatagramHeader header;

        DatagramFacts(
                IpAddress agentAddress,
                long subAgentId,
                long sequenceNumber,
                long uptimeMillis,
                DecodeContext ctx) {
            this.agentAddress = agentAddress;
            this.subAgentId = subAgentId;
            this.sequenceNumber = sequenceNumber;
            this.uptimeMillis = uptimeMillis;
            this.exporterAddress = ctx.exporter().address();
            this.exporterPort = ctx.exporter().port();
            this.receivedMillis = ctx.receivedMillis();
            this.streamId = ctx.streamId();
            this.streamSequence = ctx.streamSequence();
            // sFlow has no export clock: the receive time stands for it.
            this.header =
                    new DatagramHeader(
                            FlowRecord.VERSION_SFLOW5,
                            exporterAddress,
                            exporterPort,
                            subAgentId,
                            sequenceNumber,
                            receivedMillis,
                            receivedMillis,
                            streamId,
                            streamSequence);
        }

        /** What every flow sample of the datagram shares. */
        DatagramHeader header() {
            return header;
        }
    }

    private final ProblemTally tally = new ProblemTally();
    private final FlowSample flowSample = new FlowSample();
    private final CounterSample counterSample = new CounterSample();
    private final RecordWalk walk = new RecordWalk();
    private byte[] scratch = new byte[2048];

    /**
     * Decodes the datagram between {@code datagram}'s position and limit.
     *
     * @throws DecodeException if the header is unusable (truncated, not version 5, an agent address
     *     type sFlow does not define); problems inside are in {@link DecodeResult#problems()}
     */
    public DecodeResult decode(ByteBuffer datagram, DecodeContext ctx) throws DecodeException {
        int start = datagram.position();
        int n = Math.min(datagram.limit() - start, MAX_DATAGRAM);
        if (n < MIN_HEADER_SIZE) {
            throw new TruncatedMessageException(
                    DecodeProblem.Kind.TRUNCATED_HEADER,
                    "sFlow datagram of " + n + " bytes (expected: >= " + MIN_HEADER_SIZE + ")");
        }
        // A private heap copy: array reads inline far better than buffer reads, and the caller's
        // buffer is never read twice, moved or kept.
        if (scratch.length < n) {
            scratch = new byte[Math.max(n, Math.min(MAX_DATAGRAM, scratch.length * 2))];
        }
        datagram.get(start, scratch, 0, n);
        return decode(scratch, n, ctx);
    }

    private DecodeResult decode(byte[] b, int end, DecodeContext ctx) throws DecodeException {
        long version = Xdr.u32(b, 0);
        if (version != VERSION) {
            throw new UnsupportedVersionException((int) Math.min(version, Integer.MAX_VALUE));
        }
        int addressType = Xdr.s32(b, 4);
        int addressLength = Xdr.addressLength(addressType);
        if (addressLength < 0) {
            throw new MalformedSetException(
                    DecodeProblem.Kind.BAD_ADDRESS_TYPE,
                    "sFlow agent address type "
                            + Integer.toUnsignedString(addressType)
                            + " (expected: 0, 1 or 2)");
        }
        int headerSize = 8 + addressLength + 16;
        if (end < headerSize) {
            throw new TruncatedMessageException(
                    DecodeProblem.Kind.TRUNCATED_HEADER,
                    "sFlow header with a "
                            + addressLength
                            + "-byte agent address needs "
                            + headerSize
                            + " bytes, "
                            + end
                            + " remain");
        }
        int p = 8 + addressLength;
        DatagramFacts d =
                new DatagramFacts(
                        Xdr.address(b, 8, addressType),
                        Xdr.u32(b, p),
                        Xdr.u32(b, p + 4),
                        Xdr.u32(b, p + 8),
                        ctx);
        long declared = Xdr.u32(b, p + 12);
        p += 16;

        ProblemTally t = tally;
        t.reset();
        int fit = (end - p) / MIN_FLOW_SAMPLE;
        // A fresh builder (young, see DatagramFacts), sized by what the datagram can hold.
        DecodeResult.Builder r = new DecodeResult.Builder((int) Math.min(declared, fit));
        r.header(
                FlowRecord.VERSION_SFLOW5,
                d.subAgentId,
                d.sequenceNumber,
                d.receivedMillis,
                (int) Math.min(declared, Integer.MAX_VALUE),
                d.uptimeMillis);
        Samples s = new Samples(b, d, t, r);
        RecordWalk w = walk;
        w.start(p, end, declared);
        while (w.next(b, t, "sample")) {
            s.sample(w.format(), w.at(), w.length());
        }
        r.sflow(
                new SflowDatagram(
                        d.agentAddress,
                        d.subAgentId,
                        d.sequenceNumber,
                        d.uptimeMillis,
                        declared,
                        s.flowSamples,
                        s.counterSamples,
                        t.count(DecodeProblem.Kind.UNKNOWN_SAMPLE_FORMAT),
                        t.count(DecodeProblem.Kind.UNKNOWN_RECORD_FORMAT),
                        s.counters));
        t.drainTo(r);
        return r.build();
    }

    /** Dispatches each sample of one datagram by its format; one per datagram (young). */
    private final class Samples {
        private final byte[] b;
        private final DatagramFacts d;
        private final ProblemTally t;
        private final DecodeResult.Builder r;
        int flowSamples;
        int counterSamples;

        /** Samples seen so far, decodable or not: a flow's position is its sample's ordinal. */
        int ordinal;

        List<InterfaceCounters> counters = List.of();

        Samples(byte[] b, DatagramFacts d, ProblemTally t, DecodeResult.Builder r) {
            this.b = b;
            this.d = d;
            this.t = t;
            this.r = r;
        }

        void sample(int dataFormat, int at, int len) {
            int position = FlowRecord.position(ordinal++, 0);
            switch (dataFormat) {
                case FlowSample.FORMAT:
                case FlowSample.EXPANDED_FORMAT:
                    FlowRecord f =
                            flowSample.decode(
                                    b,
                                    at,
                                    len,
                                    dataFormat == FlowSample.EXPANDED_FORMAT,
                                    d,
                                    position,
                                    t);
                    if (f != null) {
                        flowSamples++;
                        r.record(f);
                    }
                    break;
                case CounterSample.FORMAT:
                case CounterSample.EXPANDED_FORMAT:
                    boolean expanded = dataFormat == CounterSample.EXPANDED_FORMAT;
                    InterfaceCounters c = counterSample.decode(b, at, len, expanded, d, t);
                    if (len >= (expanded ? CounterSample.EXPANDED_SIZE : CounterSample.SIZE)) {
                        counterSamples++;
                    }
                    if (c != null) {
                        if (counters.isEmpty()) {
                            counters = new ArrayList<>(4);
                        }
                        counters.add(c);
                    }
                    break;
                default:
                    DecodeProblem.Kind k = DecodeProblem.Kind.UNKNOWN_SAMPLE_FORMAT;
                    t.add(
                            k,
                            t.seen(k)
                                    ? null
                                    : "sample "
                                            + FlowRecords.format(dataFormat)
                                            + " of "
                                            + len
                                            + " bytes skipped");
            }
        }
    }
}
