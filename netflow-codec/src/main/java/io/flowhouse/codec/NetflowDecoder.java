// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import io.flowhouse.codec.flow.FlowRecordMapper;
import io.flowhouse.codec.ipfix.IpfixDecoder;
import io.flowhouse.codec.sflow.SflowDecoder;
import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateCache;
import io.flowhouse.codec.v5.V5Decoder;
import io.flowhouse.codec.v9.V9Decoder;
import java.nio.ByteBuffer;

/**
 * The codec's front door: reads the version of a datagram and hands it to the v5, v9, IPFIX or
 * sFlow v5 decoder. NetFlow and IPFIX start with a 16-bit version (5, 9, 10), sFlow with a 32-bit
 * one ({@code 00 00 00 05}), so the first two bytes tell them apart on any port. Pure apart from
 * the caller's {@link TemplateCache}: no logging, no clock, no threads. Holds reusable scratch, so
 * use one instance per thread (they are cheap). Only {@link DecodeException} subtypes escape; the
 * buffer's position and limit are left as they were.
 */
public final class NetflowDecoder {

    /** Largest datagram (UDP payload limit); the scratch copy never grows beyond it. */
    static final int MAX_DATAGRAM = 0xffff;

    private final V5Decoder v5 = new V5Decoder();
    private final V9Decoder v9;
    private final IpfixDecoder ipfix;
    private final SflowDecoder sflow = new SflowDecoder();
    private byte[] scratch = new byte[2048];
    private ByteBuffer heap = ByteBuffer.wrap(scratch);

    public NetflowDecoder() {
        this(FlowRecordMapper.standard());
    }

    public NetflowDecoder(FlowRecordMapper mapper) {
        this(mapper, OptionsLimits.defaults());
    }

    /** A decoder that keeps options data within {@code optionsLimits}. */
    public NetflowDecoder(OptionsLimits optionsLimits) {
        this(FlowRecordMapper.standard(), optionsLimits);
    }

    public NetflowDecoder(FlowRecordMapper mapper, OptionsLimits optionsLimits) {
        DataSetDecoder data = new DataSetDecoder(mapper, optionsLimits);
        this.v9 = new V9Decoder(data);
        this.ipfix = new IpfixDecoder(data);
    }

    /**
     * Decodes the datagram between {@code datagram}'s position and limit.
     *
     * @throws DecodeException if the header is unusable (truncated, unknown version, IPFIX length
     *     past the end); problems inside are counted in {@link DecodeResult#problemCounts()} (with
     *     the first of each kind described in {@link DecodeResult#problems()})
     */
    public DecodeResult decode(ByteBuffer datagram, DecodeContext ctx, TemplateCache cache)
            throws DecodeException {
        int start = datagram.position();
        if (datagram.limit() - start < 2) {
            throw new TruncatedMessageException(
                    DecodeProblem.Kind.TRUNCATED_HEADER,
                    "datagram of " + (datagram.limit() - start) + " bytes (expected: >= 2)");
        }
        int version = datagram.getShort(start) & 0xffff;
        boolean sflowV5 =
                version == 0
                        && datagram.limit() - start >= 4
                        && datagram.getShort(start + 2) == SflowDecoder.VERSION;
        if (version != 5 && version != 9 && version != 10 && !sflowV5) {
            throw new UnsupportedVersionException(version);
        }
        if (sflowV5) {
            try {
                // The sFlow decoder makes its own private copy.
                return sflow.decode(datagram, ctx);
            } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                throw new MalformedSetException(
                        DecodeProblem.Kind.RECORD_TRUNCATED,
                        "internal bounds check failed: " + e.getMessage());
            }
        }
        // Decode from a private heap copy: heap-buffer reads inline far better than direct or
        // read-only views, and a caller's buffer is then never read twice or kept.
        int len = Math.min(datagram.limit() - start, MAX_DATAGRAM);
        if (scratch.length < len) {
            scratch = new byte[Math.max(len, Math.min(MAX_DATAGRAM, scratch.length * 2))];
            heap = ByteBuffer.wrap(scratch);
        }
        datagram.get(start, scratch, 0, len);
        ByteBuffer b = heap;
        b.limit(len).position(0);
        try {
            return switch (version) {
                case 5 -> v5.decode(b, ctx);
                case 9 -> v9.decode(b, ctx, cache);
                default -> ipfix.decode(b, ctx, cache);
            };
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            // Every read is bounds-checked first; this is a defect, but never an unnamed escape.
            throw new MalformedSetException(
                    DecodeProblem.Kind.RECORD_TRUNCATED,
                    "internal bounds check failed: " + e.getMessage());
        }
    }
}
