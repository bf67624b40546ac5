// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.v5;

import io.flowhouse.codec.flow.FlowRecord;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * Writes NetFlow v5 export datagrams: a 24-byte header and up to {@value #MAX_RECORDS} 48-byte flow
 * records. Pure and synchronous: it writes into the buffer the caller provides and returns the
 * number of bytes written; it reads no clock (the caller passes export time and uptime).
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------------------------------+-------------------------------+
 * |         version (5)           |          count (1..30)        |
 * +-------------------------------+-------------------------------+
 * |                     sysUptime (ms, uint32)                    |
 * |                     unix_secs (uint32)                        |
 * |                     unix_nsecs (uint32)                       |
 * |                     flow_sequence (uint32, counts flows)      |
 * +---------------+---------------+-------------------------------+
 * | engine_type   | engine_id     | sampling: mode(2) interval(14)|
 * +---------------+---------------+-------------------------------+
 * </pre>
 *
 * A v5 record carries IPv4 addresses, 16-bit interfaces and AS numbers and 32-bit counters; values
 * that do not fit are refused rather than silently truncated, so what the caller counts is what a
 * collector decodes.
 *
 * @see <a
 *     href="https://www.cisco.com/c/en/us/td/docs/net_mgmt/netflow_collection_engine/3-6/user/guide/format.html">Cisco
 *     NetFlow export datagram format</a>
 */
public final class V5Encoder {

    public static final int VERSION = 5;
    public static final int HEADER_SIZE = 24;
    public static final int RECORD_SIZE = 48;

    /** The format allows at most 30 records per datagram (count is checked by collectors). */
    public static final int MAX_RECORDS = 30;

    /** Sampling mode in the top two bits of the sampling field: 1 = deterministic 1-in-N. */
    public static final int SAMPLING_MODE_DETERMINISTIC = 1;

    /** The sampling interval field has 14 bits. */
    public static final int MAX_SAMPLING_INTERVAL = 0x3fff;

    private V5Encoder() {}

    /**
     * What goes into the v5 header besides the count.
     *
     * @param exportTimeMillis export time, epoch ms (written as unix_secs + unix_nsecs)
     * @param sysUptimeMillis exporter uptime at export time, ms (uint32, wraps)
     * @param flowSequence sequence number of the first flow in this datagram (uint32)
     * @param engineType engine type (uint8)
     * @param engineId engine id (uint8)
     * @param samplingMode 0 none, 1 deterministic, 2 random (2 bits)
     * @param samplingInterval 1-in-N, 0 or 1 when unsampled (14 bits)
     */
    public record Header(
            long exportTimeMillis,
            long sysUptimeMillis,
            long flowSequence,
            int engineType,
            int engineId,
            int samplingMode,
            int samplingInterval) {
        public Header {
            if (engineType < 0 || engineType > 0xff || engineId < 0 || engineId > 0xff) {
                throw new IllegalArgumentException(
                        "engine type/id " + engineType + "/" + engineId + " (expected: 0..255)");
            }
            if (samplingMode < 0 || samplingMode > 3) {
                throw new IllegalArgumentException(
                        "sampling mode " + samplingMode + " (expected: 0..3)");
            }
            if (samplingInterval < 0 || samplingInterval > MAX_SAMPLING_INTERVAL) {
                throw new IllegalArgumentException(
                        "sampling interval "
                                + samplingInterval
                                + " (expected: 0.."
                                + MAX_SAMPLING_INTERVAL
                                + ")");
            }
        }

        /** Epoch ms at which the exporter's uptime was 0; record times are relative to it. */
        public long bootTimeMillis() {
            return exportTimeMillis - sysUptimeMillis;
        }
    }

    /** Bytes a datagram with {@code records} records takes. */
    public static int size(int records) {
        return HEADER_SIZE + records * RECORD_SIZE;
    }

    /**
     * Writes one datagram at the buffer's position and returns its length.
     *
     * @throws IllegalArgumentException if a record cannot be expressed in v5 (IPv6, counters over
     *     32 bits, interface or AS over 16 bits, more than 30 records, times before boot)
     * @throws BufferOverflowException if {@code out} has less than {@link #size(int)} remaining
     */
    public static int encode(Header header, List<FlowRecord> records, ByteBuffer out) {
        int n = records.size();
        if (n > MAX_RECORDS) {
            throw new IllegalArgumentException(n + " records (expected: <= " + MAX_RECORDS + ")");
        }
        int size = size(n);
        if (out.remaining() < size) {
            throw new BufferOverflowException();
        }
        for (FlowRecord r : records) {
            check(header, r);
        }
        int start = out.position();
        long exportMillis = header.exportTimeMillis();
        out.putShort((short) VERSION);
        out.putShort((short) n);
        out.putInt((int) header.sysUptimeMillis());
        out.putInt((int) Math.floorDiv(exportMillis, 1000L));
        out.putInt((int) (Math.floorMod(exportMillis, 1000L) * 1_000_000L));
        out.putInt((int) header.flowSequence());
        out.put((byte) header.engineType());
        out.put((byte) header.engineId());
        out.putShort((short) ((header.samplingMode() << 14) | header.samplingInterval()));
        long boot = header.bootTimeMillis();
        for (FlowRecord r : records) {
            out.putInt(r.srcAddr().ipv4());
            out.putInt(r.dstAddr().ipv4());
            out.putInt(r.nextHop().isUnspecified() ? 0 : r.nextHop().ipv4());
            out.putShort((short) r.inputInterface());
            out.putShort((short) r.outputInterface());
            out.putInt((int) r.packets());
            out.putInt((int) r.bytes());
            out.putInt((int) (r.flowStartMillis() - boot));
            out.putInt((int) (r.flowEndMillis() - boot));
            out.putShort((short) r.srcPort());
            out.putShort((short) r.dstPort());
            out.put((byte) 0); // pad1
            out.put((byte) r.tcpFlags());
            out.put((byte) r.protocol());
            out.put((byte) r.tos());
            out.putShort((short) r.srcAs());
            out.putShort((short) r.dstAs());
            out.put((byte) r.srcPrefixLen());
            out.put((byte) r.dstPrefixLen());
            out.putShort((short) 0); // pad2
        }
        return out.position() - start;
    }

    private static void check(Header h, FlowRecord r) {
        if (!r.srcAddr().isIpv4() || !r.dstAddr().isIpv4()) {
            throw new IllegalArgumentException(
                    "v5 carries IPv4 only, got " + r.srcAddr() + " -> " + r.dstAddr());
        }
        if (!r.nextHop().isUnspecified() && !r.nextHop().isIpv4()) {
            throw new IllegalArgumentException("v5 next hop must be IPv4, got " + r.nextHop());
        }
        requireRange("packets", r.packets(), 0xffff_ffffL);
        requireRange("bytes", r.bytes(), 0xffff_ffffL);
        requireRange("input interface", r.inputInterface(), 0xffff);
        requireRange("output interface", r.outputInterface(), 0xffff);
        requireRange("source AS", r.srcAs(), 0xffff);
        requireRange("destination AS", r.dstAs(), 0xffff);
        requireRange("source port", r.srcPort(), 0xffff);
        requireRange("destination port", r.dstPort(), 0xffff);
        requireRange("protocol", r.protocol(), 0xff);
        requireRange("source prefix length", r.srcPrefixLen(), 32);
        requireRange("destination prefix length", r.dstPrefixLen(), 32);
        long boot = h.bootTimeMillis();
        requireRange("flow start uptime", r.flowStartMillis() - boot, 0xffff_ffffL);
        requireRange("flow end uptime", r.flowEndMillis() - boot, 0xffff_ffffL);
    }

    private static void requireRange(String what, long value, long max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException(
                    what + " " + value + " does not fit v5 (expected: 0.." + max + ")");
        }
    }
}
