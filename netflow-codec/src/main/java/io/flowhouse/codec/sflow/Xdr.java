// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;

/**
 * XDR reads (RFC 4506: big-endian, 4-byte aligned) at absolute indices of a buffer. Callers check
 * bounds before reading; these never move the buffer's position.
 */
final class Xdr {

    /** sFlow address type "unknown": no address bytes follow. */
    static final int ADDRESS_UNKNOWN = 0;

    static final int ADDRESS_IPV4 = 1;

    static final int ADDRESS_IPV6 = 2;

    private Xdr() {}

    /** An unsigned int, widened. */
    static long u32(ByteBuffer b, int at) {
        return b.getInt(at) & 0xffff_ffffL;
    }

    /** An unsigned hyper, as a long holding the unsigned value. */
    static long u64(ByteBuffer b, int at) {
        return b.getLong(at);
    }

    /**
     * Bytes of an address's value after its 4-byte type, or -1 for a type sFlow does not define.
     */
    static int addressLength(int type) {
        switch (type) {
            case ADDRESS_IPV4:
                return 4;
            case ADDRESS_IPV6:
                return 16;
            case ADDRESS_UNKNOWN:
                return 0;
            default:
                return -1;
        }
    }

    /** The address value at {@code at} of an address of {@code type} (checked by the caller). */
    static IpAddress address(ByteBuffer b, int at, int type) {
        if (type == ADDRESS_IPV4) {
            return IpAddress.ofIpv4(b.getInt(at));
        }
        if (type == ADDRESS_IPV6) {
            return new IpAddress(b.getLong(at), b.getLong(at + 8));
        }
        return IpAddress.UNSPECIFIED;
    }

    /** {@code n} rounded up to a multiple of 4 (XDR opaque padding), as a long (no overflow). */
    static long padded(long n) {
        return (n + 3) & ~3L;
    }
}
