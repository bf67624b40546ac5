// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.sflow.SflowDecoder;
import java.nio.ByteBuffer;

/**
 * A cheap look at a datagram's header only, for the capture agent to reject garbage before Kafka:
 * version 5, 9 or 10; length consistent with the header; v5 count sane. sFlow v5 (a 32-bit version
 * 5: {@code 00 00 00 05}, where NetFlow v5 has {@code 00 05}) passes with a known agent address
 * type, a complete header and no more samples than fit; its verdict's version is {@link
 * FlowRecord#VERSION_SFLOW5}. Reads absolute positions; the buffer is not changed. Stateless and
 * thread-safe.
 */
public final class HeaderCheck {

    /** Why a datagram was rejected. */
    public enum Reason {
        OK,
        TOO_SHORT,
        UNSUPPORTED_VERSION,
        LENGTH_MISMATCH,
        BAD_COUNT,
        /** sFlow: an agent address type other than 0 (unknown), 1 (IPv4) and 2 (IPv6). */
        BAD_ADDRESS_TYPE
    }

    /**
     * The verdict.
     *
     * @param ok true if the header is plausible
     * @param version the version read, or -1 if none could be read
     * @param reason why not, or OK
     * @param text human-readable reason, empty when ok
     */
    public record Verdict(boolean ok, int version, Reason reason, String text) {}

    private static final Verdict[] OK_BY_VERSION = {
        new Verdict(true, 5, Reason.OK, ""),
        new Verdict(true, 9, Reason.OK, ""),
        new Verdict(true, 10, Reason.OK, ""),
        new Verdict(true, FlowRecord.VERSION_SFLOW5, Reason.OK, ""),
    };

    private HeaderCheck() {}

    public static Verdict check(ByteBuffer d) {
        int start = d.position();
        int n = d.limit() - start;
        if (n < 2) {
            return new Verdict(false, -1, Reason.TOO_SHORT, n + " bytes (expected: >= 2)");
        }
        int version = d.getShort(start) & 0xffff;
        if (version == 0 && n >= 4 && d.getInt(start) == SflowDecoder.VERSION) {
            return sflow(d, start, n);
        }
        switch (version) {
            case 5:
                if (n < 24) {
                    return tooShort(version, n, 24);
                }
                int count = d.getShort(start + 2) & 0xffff;
                if (count == 0 || count > 30) {
                    return new Verdict(
                            false,
                            version,
                            Reason.BAD_COUNT,
                            "v5 count " + count + " (expected: 1..30)");
                }
                if (n < 24 + 48 * count) {
                    return new Verdict(
                            false,
                            version,
                            Reason.LENGTH_MISMATCH,
                            "v5 count "
                                    + count
                                    + " needs "
                                    + (24 + 48 * count)
                                    + " bytes, got "
                                    + n);
                }
                return OK_BY_VERSION[0];
            case 9:
                if (n < 20) {
                    return tooShort(version, n, 20);
                }
                return OK_BY_VERSION[1];
            case 10:
                if (n < 16) {
                    return tooShort(version, n, 16);
                }
                int length = d.getShort(start + 2) & 0xffff;
                if (length < 16 || length > n) {
                    return new Verdict(
                            false,
                            version,
                            Reason.LENGTH_MISMATCH,
                            "IPFIX length "
                                    + length
                                    + ", datagram "
                                    + n
                                    + " bytes (expected: 16.."
                                    + n
                                    + ")");
                }
                return OK_BY_VERSION[2];
            default:
                return new Verdict(
                        false,
                        version,
                        Reason.UNSUPPORTED_VERSION,
                        "version " + version + " (expected: 5, 9 or 10, or sFlow's 32-bit 5)");
        }
    }

    private static Verdict sflow(ByteBuffer d, int start, int n) {
        int version = FlowRecord.VERSION_SFLOW5;
        if (n < SflowDecoder.MIN_HEADER_SIZE) {
            return new Verdict(
                    false,
                    version,
                    Reason.TOO_SHORT,
                    "sFlow v5 header needs " + SflowDecoder.MIN_HEADER_SIZE + " bytes, got " + n);
        }
        int type = d.getInt(start + 4);
        if (type != 1 && type != 2 && type != 0) {
            return new Verdict(
                    false,
                    version,
                    Reason.BAD_ADDRESS_TYPE,
                    "sFlow v5 agent address type "
                            + Integer.toUnsignedString(type)
                            + " (expected: 0, 1 or 2)");
        }
        int header = 8 + (type == 1 ? 4 : type == 2 ? 16 : 0) + 16;
        if (n < header) {
            return new Verdict(
                    false,
                    version,
                    Reason.TOO_SHORT,
                    "sFlow v5 header needs " + header + " bytes, got " + n);
        }
        long samples = d.getInt(start + header - 4) & 0xffff_ffffL;
        if (samples > (n - header) / 8) {
            return new Verdict(
                    false,
                    version,
                    Reason.BAD_COUNT,
                    "sFlow v5 declares "
                            + samples
                            + " samples, "
                            + (n - header)
                            + " bytes hold at most "
                            + (n - header) / 8);
        }
        return OK_BY_VERSION[3];
    }

    private static Verdict tooShort(int version, int n, int need) {
        return new Verdict(
                false,
                version,
                Reason.TOO_SHORT,
                "v" + version + " header needs " + need + " bytes, got " + n);
    }
}
