// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.flow.IpAddress;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * XDR reads (RFC 4506: big-endian, 4-byte aligned) at indices of the decoder's private copy of a
 * datagram, through big-endian array views (one bounds check per read, no buffer state). Callers
 * check lengths before reading; an index past the array still fails, never reads garbage.
 */
final class Xdr {

    /** sFlow address type "unknown": no address bytes follow. */
    static final int ADDRESS_UNKNOWN = 0;

    static final int ADDRESS_IPV4 = 1;

    static final int ADDRESS_IPV6 = 2;

    private static final VarHandle I16 =
            MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle I32 =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle I64 =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private Xdr() {}

    /** An int, as the wire has it (formats, types). */
    static int s32(byte[] b, int at) {
        return (int) I32.get(b, at);
    }

    /** An unsigned int, widened. */
    static long u32(byte[] b, int at) {
        return (int) I32.get(b, at) & 0xffff_ffffL;
    }

    /** An unsigned hyper, as a long holding the unsigned value. */
    static long u64(byte[] b, int at) {
        return (long) I64.get(b, at);
    }

    /** A 16-bit unsigned value inside opaque data (MAC addresses). */
    static int u16(byte[] b, int at) {
        return (short) I16.get(b, at) & 0xffff;
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
    static IpAddress address(byte[] b, int at, int type) {
        if (type == ADDRESS_IPV4) {
            return IpAddress.ofIpv4(s32(b, at));
        }
        if (type == ADDRESS_IPV6) {
            return new IpAddress(u64(b, at), u64(b, at + 8));
        }
        return IpAddress.UNSPECIFIED;
    }

    /** The upper 64 bits of an address value, as {@link IpAddress#hi()} (IPv4: mapped). */
    static long addressHi(byte[] b, int at, int type) {
        return type == ADDRESS_IPV6 ? u64(b, at) : 0L;
    }

    /** The lower 64 bits of an address value, as {@link IpAddress#lo()} (IPv4: mapped). */
    static long addressLo(byte[] b, int at, int type) {
        if (type == ADDRESS_IPV4) {
            return 0x0000_ffff_0000_0000L | u32(b, at);
        }
        return type == ADDRESS_IPV6 ? u64(b, at + 8) : 0L;
    }

    /** {@code n} rounded up to a multiple of 4 (XDR opaque padding), as a long (no overflow). */
    static long padded(long n) {
        return (n + 3) & ~3L;
    }
}
