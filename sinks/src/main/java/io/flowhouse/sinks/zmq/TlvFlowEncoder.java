// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.charset.StandardCharsets;

/**
 * Encodes a {@link FlowRecord} as one nDPI-serializer TLV record, the flow format ntopng community
 * accepts ({@code ZMQParserInterface::parseTLVFlow}). Keys are nProbe field ids ({@link
 * NprobeField}), PEN 0.
 *
 * <p>Item layout: one type byte {@code (keyType << 4) | valueType}, the key, the value. Integer
 * keys and values are big endian and shrunk to the smallest of u8/u16/u32 (u64 only above 2^32-1),
 * as {@code ndpi_serialize_uint32_uint32} does; strings are a u16 big-endian length plus the bytes.
 * A record ends with the single byte {@code 0x01}. The 2-byte buffer header {@code 01 01}
 * (serializer version 1, format TLV) is written once per message by {@link #writeBufferHeader}.
 *
 * <p>Field choices follow what ntopng parses: IPv4 addresses as u32 numbers, IPv6 addresses, MACs,
 * the exporter address and the end reason as strings (ntopng reads those only as strings); times as
 * UNIX seconds in FIRST/LAST_SWITCHED (nProbe's ZMQ convention) plus epoch milliseconds in IEs
 * 152/153 so no precision is lost; IN_* are the forward counters and OUT_* the RFC 5103 reverse
 * counters (0 for uniflows). DIRECTION is left out when the flow has none; DST_VLAN is never sent
 * because ntopng would overwrite SRC_VLAN with it. Stateless and thread-safe.
 */
public final class TlvFlowEncoder {

    /** Upper bound of one encoded record; callers keep this much room free. */
    public static final int MAX_RECORD_BYTES = 1024;

    /** Length of the serializer buffer header. */
    public static final int BUFFER_HEADER_BYTES = 2;

    static final int TYPE_END_OF_RECORD = 1;
    static final int TYPE_UINT8 = 2;
    static final int TYPE_UINT16 = 3;
    static final int TYPE_UINT32 = 4;
    static final int TYPE_UINT64 = 5;
    static final int TYPE_STRING = 11;

    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);

    private static final String[] END_REASONS = {
        "", "idle timeout", "active timeout", "end of flow", "forced end", "lack of resources"
    };

    private TlvFlowEncoder() {}

    /** Writes {@code 01 01} at {@code pos}; returns the new position. */
    public static int writeBufferHeader(byte[] buf, int pos) {
        buf[pos] = 1;
        buf[pos + 1] = 1;
        return pos + BUFFER_HEADER_BYTES;
    }

    /** The text sent in FLOW_END_REASON for an IE 136 code, or null when not given. */
    public static String endReasonText(int code) {
        if (code <= 0) {
            return null;
        }
        return code < END_REASONS.length ? END_REASONS[code] : "reason " + code;
    }

    /**
     * Writes one record at {@code pos}; {@code buf} must have {@link #MAX_RECORD_BYTES} free.
     *
     * @return the position after the record's end-of-record byte
     */
    public static int encode(FlowRecord f, byte[] buf, int pos) {
        int p = pos;
        boolean v6 =
                f.ipVersion() == 6
                        || (f.ipVersion() == 0
                                && !f.srcAddr().isIpv4()
                                && !f.srcAddr().isUnspecified());
        p = putUint(buf, p, NprobeField.IP_PROTOCOL_VERSION.id(), v6 ? 6 : 4);
        if (v6) {
            p = putString(buf, p, NprobeField.IPV6_SRC_ADDR.id(), f.srcAddr().toString());
            p = putString(buf, p, NprobeField.IPV6_DST_ADDR.id(), f.dstAddr().toString());
            p = putUint(buf, p, NprobeField.IPV6_SRC_MASK.id(), f.srcPrefixLen());
            p = putUint(buf, p, NprobeField.IPV6_DST_MASK.id(), f.dstPrefixLen());
        } else {
            p = putUint(buf, p, NprobeField.IPV4_SRC_ADDR.id(), f.srcAddr().ipv4() & 0xffff_ffffL);
            p = putUint(buf, p, NprobeField.IPV4_DST_ADDR.id(), f.dstAddr().ipv4() & 0xffff_ffffL);
            p = putUint(buf, p, NprobeField.IPV4_SRC_MASK.id(), f.srcPrefixLen());
            p = putUint(buf, p, NprobeField.IPV4_DST_MASK.id(), f.dstPrefixLen());
        }
        IpAddress nh = f.nextHop();
        if (nh.isIpv4()) {
            p = putUint(buf, p, NprobeField.IPV4_NEXT_HOP.id(), nh.ipv4() & 0xffff_ffffL);
        } else if (!nh.isUnspecified()) {
            p = putString(buf, p, NprobeField.IPV6_NEXT_HOP.id(), nh.toString());
        }
        p = putUint(buf, p, NprobeField.L4_SRC_PORT.id(), f.srcPort());
        p = putUint(buf, p, NprobeField.L4_DST_PORT.id(), f.dstPort());
        p = putUint(buf, p, NprobeField.PROTOCOL.id(), f.protocol());
        p = putUint(buf, p, NprobeField.SRC_TOS.id(), f.tos());
        p = putUint(buf, p, NprobeField.TCP_FLAGS.id(), f.tcpFlags());
        p = putUint(buf, p, NprobeField.IN_BYTES.id(), f.bytes());
        p = putUint(buf, p, NprobeField.IN_PKTS.id(), f.packets());
        p = putUint(buf, p, NprobeField.OUT_BYTES.id(), f.reverseBytes());
        p = putUint(buf, p, NprobeField.OUT_PKTS.id(), f.reversePackets());
        p = putUint(buf, p, NprobeField.FIRST_SWITCHED.id(), f.flowStartMillis() / 1000);
        p = putUint(buf, p, NprobeField.LAST_SWITCHED.id(), f.flowEndMillis() / 1000);
        p = putUint(buf, p, NprobeField.FLOW_START_MILLISECONDS.id(), f.flowStartMillis());
        p = putUint(buf, p, NprobeField.FLOW_END_MILLISECONDS.id(), f.flowEndMillis());
        p = putUint(buf, p, NprobeField.INPUT_SNMP.id(), f.inputInterface());
        p = putUint(buf, p, NprobeField.OUTPUT_SNMP.id(), f.outputInterface());
        p = putUint(buf, p, NprobeField.SRC_AS.id(), f.srcAs());
        p = putUint(buf, p, NprobeField.DST_AS.id(), f.dstAs());
        p = putMac(buf, p, NprobeField.IN_SRC_MAC.id(), f.srcMac());
        p = putMac(buf, p, NprobeField.OUT_DST_MAC.id(), f.dstMac());
        p = putUint(buf, p, NprobeField.SRC_VLAN.id(), f.vlanId());
        if (f.direction() >= 0) {
            p = putUint(buf, p, NprobeField.DIRECTION.id(), f.direction());
        }
        p = putUint(buf, p, NprobeField.SAMPLING_INTERVAL.id(), f.samplingRate());
        IpAddress exporter = f.exporterAddress();
        if (exporter.isIpv4()) {
            p = putIpv4String(buf, p, NprobeField.EXPORTER_IPV4_ADDRESS.id(), exporter.ipv4());
        } else if (!exporter.isUnspecified()) {
            p = putString(buf, p, NprobeField.EXPORTER_IPV6_ADDRESS.id(), exporter.toString());
        }
        String reason = endReasonText(f.flowEndReason());
        if (reason != null) {
            p = putString(buf, p, NprobeField.FLOW_END_REASON.id(), reason);
        }
        buf[p++] = TYPE_END_OF_RECORD;
        return p;
    }

    /** An unsigned key with an unsigned value (u64 in a long), both shrunk to fit. */
    static int putUint(byte[] b, int pos, int key, long value) {
        int typeAt = pos;
        int p = putKey(b, pos + 1, key);
        int keyType = keyType(key);
        int valueType;
        if ((value >>> 32) != 0) {
            valueType = TYPE_UINT64;
            for (int shift = 56; shift >= 0; shift -= 8) {
                b[p++] = (byte) (value >>> shift);
            }
        } else if (value <= 0xffL) {
            valueType = TYPE_UINT8;
            b[p++] = (byte) value;
        } else if (value <= 0xffffL) {
            valueType = TYPE_UINT16;
            b[p++] = (byte) (value >>> 8);
            b[p++] = (byte) value;
        } else {
            valueType = TYPE_UINT32;
            b[p++] = (byte) (value >>> 24);
            b[p++] = (byte) (value >>> 16);
            b[p++] = (byte) (value >>> 8);
            b[p++] = (byte) value;
        }
        b[typeAt] = (byte) ((keyType << 4) | valueType);
        return p;
    }

    /** An unsigned key with an ASCII string value. */
    static int putString(byte[] b, int pos, int key, String value) {
        int p = putKey(b, pos + 1, key);
        b[pos] = (byte) ((keyType(key) << 4) | TYPE_STRING);
        int n = value.length();
        b[p++] = (byte) (n >>> 8);
        b[p++] = (byte) n;
        for (int i = 0; i < n; i++) {
            b[p++] = (byte) value.charAt(i);
        }
        return p;
    }

    /** A MAC address as {@code aa:bb:cc:dd:ee:ff}, the form ntopng's {@code parseMac} reads. */
    static int putMac(byte[] b, int pos, int key, long mac) {
        int p = putKey(b, pos + 1, key);
        b[pos] = (byte) ((keyType(key) << 4) | TYPE_STRING);
        b[p++] = 0;
        b[p++] = 17;
        for (int i = 5; i >= 0; i--) {
            int octet = (int) (mac >>> (8 * i)) & 0xff;
            b[p++] = HEX[octet >>> 4];
            b[p++] = HEX[octet & 0xf];
            if (i > 0) {
                b[p++] = ':';
            }
        }
        return p;
    }

    /** An IPv4 address as a dotted quad string, without allocating. */
    static int putIpv4String(byte[] b, int pos, int key, int v4) {
        int p = putKey(b, pos + 1, key);
        b[pos] = (byte) ((keyType(key) << 4) | TYPE_STRING);
        int lenAt = p;
        p += 2;
        int start = p;
        for (int i = 3; i >= 0; i--) {
            int octet = (v4 >>> (8 * i)) & 0xff;
            if (octet >= 100) {
                b[p++] = (byte) ('0' + octet / 100);
            }
            if (octet >= 10) {
                b[p++] = (byte) ('0' + (octet / 10) % 10);
            }
            b[p++] = (byte) ('0' + octet % 10);
            if (i > 0) {
                b[p++] = '.';
            }
        }
        int n = p - start;
        b[lenAt] = (byte) (n >>> 8);
        b[lenAt + 1] = (byte) n;
        return p;
    }

    private static int keyType(int key) {
        if (key <= 0xff) {
            return TYPE_UINT8;
        }
        return key <= 0xffff ? TYPE_UINT16 : TYPE_UINT32;
    }

    private static int putKey(byte[] b, int pos, int key) {
        int p = pos;
        if (key <= 0xff) {
            b[p++] = (byte) key;
        } else if (key <= 0xffff) {
            b[p++] = (byte) (key >>> 8);
            b[p++] = (byte) key;
        } else {
            b[p++] = (byte) (key >>> 24);
            b[p++] = (byte) (key >>> 16);
            b[p++] = (byte) (key >>> 8);
            b[p++] = (byte) key;
        }
        return p;
    }
}
