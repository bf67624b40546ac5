// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import java.nio.ByteBuffer;

/**
 * A cheap look at a datagram's header only, for the capture agent to reject garbage before Kafka:
 * version 5, 9 or 10; length consistent with the header; v5 count sane. Reads absolute positions;
 * the buffer is not changed. Stateless and thread-safe.
 */
public final class HeaderCheck {

    /** Why a datagram was rejected. */
    public enum Reason {
        OK,
        TOO_SHORT,
        UNSUPPORTED_VERSION,
        LENGTH_MISMATCH,
        BAD_COUNT
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
    };

    private HeaderCheck() {}

    public static Verdict check(ByteBuffer d) {
        int start = d.position();
        int n = d.limit() - start;
        if (n < 2) {
            return new Verdict(false, -1, Reason.TOO_SHORT, n + " bytes (expected: >= 2)");
        }
        int version = d.getShort(start) & 0xffff;
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
                        "version " + version + " (expected: 5, 9 or 10)");
        }
    }

    private static Verdict tooShort(int version, int n, int need) {
        return new Verdict(
                false,
                version,
                Reason.TOO_SHORT,
                "v" + version + " header needs " + need + " bytes, got " + n);
    }
}
