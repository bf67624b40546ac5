// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The attackers' datagrams of the hostile rows, each at most the largest UDP payload over IPv4
 * (65,507 bytes). Wire layouts as RFC 7011 (IPFIX) and RFC 3954 (v9) describe them, nothing the
 * codec's own encoders would refuse to write.
 */
final class HostileDatagrams {

    /** The largest UDP payload over IPv4. */
    static final int MAX_UDP = 65_507;

    private static final int IE_SOURCE_IPV4 = 8;
    private static final int IE_INGRESS_INTERFACE = 10;
    private static final int IE_INTERFACE_NAME = 82;

    private HostileDatagrams() {}

    /**
     * The odd-field bomb at full size: one template of {@code fields} fields of an odd length
     * (sourceIPv4Address with 3 bytes), then empty data sets for that template until the datagram
     * is {@link #MAX_UDP} long. Without bounds every empty set reported every odd field once.
     */
    static byte[] oddFieldBomb(long now, int sequence, int templateId, int fields) {
        int templateSet = 4 + 4 + 4 * fields;
        int emptySets = (MAX_UDP - 16 - templateSet) / 4;
        ByteBuffer b = ByteBuffer.allocate(16 + templateSet + 4 * emptySets);
        ipfixHeader(b, now, sequence, 1);
        b.putShort((short) 2).putShort((short) templateSet);
        b.putShort((short) templateId).putShort((short) fields);
        for (int i = 0; i < fields; i++) {
            b.putShort((short) IE_SOURCE_IPV4).putShort((short) 3);
        }
        for (int i = 0; i < emptySets; i++) {
            b.putShort((short) templateId).putShort((short) 4);
        }
        return b.array();
    }

    /**
     * An options template (scope ingressInterface, then a variable-length interfaceName) and one
     * data set of {@code names} records, each naming interface {@code firstIf + i} with a string of
     * {@code nameBytes} bytes; at most one datagram long.
     */
    static byte[] optionStrings(long now, int sequence, int firstIf, int names, int nameBytes) {
        int record = 4 + 3 + nameBytes;
        int dataSet = 4 + names * record;
        int optionsSet = 4 + 6 + 8;
        int total = 16 + optionsSet + dataSet;
        if (total > MAX_UDP) {
            throw new IllegalArgumentException("options datagram of " + total + " bytes");
        }
        ByteBuffer b = ByteBuffer.allocate(total);
        ipfixHeader(b, now, sequence, 1);
        b.putShort((short) 3).putShort((short) optionsSet);
        b.putShort((short) 300).putShort((short) 2).putShort((short) 1);
        b.putShort((short) IE_INGRESS_INTERFACE).putShort((short) 4);
        b.putShort((short) IE_INTERFACE_NAME).putShort((short) 0xffff);
        b.putShort((short) 300).putShort((short) dataSet);
        byte[] name = new byte[nameBytes];
        for (int i = 0; i < names; i++) {
            Arrays.fill(name, (byte) ('a' + (firstIf + i) % 26));
            b.putInt(firstIf + i).put((byte) 0xff).putShort((short) nameBytes).put(name);
        }
        return b.array();
    }

    /**
     * An IPFIX template set of {@code count} templates from {@code firstId}, each of {@code fields}
     * well-formed 4-byte fields (sourceIPv4Address repeated: legal on the wire, a cost in state).
     */
    static byte[] templates(
            long now, int sequence, long domain, int firstId, int count, int fields) {
        int set = 4 + count * (4 + 4 * fields);
        ByteBuffer b = ByteBuffer.allocate(16 + set);
        ipfixHeader(b, now, sequence, domain);
        b.putShort((short) 2).putShort((short) set);
        for (int t = 0; t < count; t++) {
            b.putShort((short) (firstId + t)).putShort((short) fields);
            for (int f = 0; f < fields; f++) {
                b.putShort((short) IE_SOURCE_IPV4).putShort((short) 4);
            }
        }
        return b.array();
    }

    /** An IPFIX "withdraw all templates" (template id 2, no fields) and new templates after it. */
    static byte[] withdrawAllThenAnnounce(long now, int sequence, int firstId, int count) {
        int withdraw = 4 + 4;
        int set = 4 + count * (4 + 4 * 4);
        ByteBuffer b = ByteBuffer.allocate(16 + withdraw + set);
        ipfixHeader(b, now, sequence, 1);
        b.putShort((short) 2).putShort((short) withdraw);
        b.putShort((short) 2).putShort((short) 0);
        b.putShort((short) 2).putShort((short) set);
        for (int t = 0; t < count; t++) {
            b.putShort((short) (firstId + t)).putShort((short) 4);
            for (int f = 0; f < 4; f++) {
                b.putShort((short) (IE_SOURCE_IPV4 + f * 4)).putShort((short) 4);
            }
        }
        return b.array();
    }

    /**
     * A NetFlow v9 datagram from source id {@code sourceId} with one template (id 256, five fields)
     * and one data record for it: every source id is a new scope to keep.
     */
    static byte[] v9WithSourceId(long now, int sequence, int sourceId) {
        ByteBuffer b = ByteBuffer.allocate(20 + 4 + 4 + 5 * 4 + 4 + 20);
        b.putShort((short) 9).putShort((short) 2).putInt(600_000).putInt((int) now);
        b.putInt(sequence).putInt(sourceId);
        b.putShort((short) 0).putShort((short) (4 + 4 + 5 * 4));
        b.putShort((short) 256).putShort((short) 5);
        b.putShort((short) 8).putShort((short) 4); // IPV4_SRC_ADDR
        b.putShort((short) 12).putShort((short) 4); // IPV4_DST_ADDR
        b.putShort((short) 2).putShort((short) 4); // IN_PKTS
        b.putShort((short) 1).putShort((short) 4); // IN_BYTES
        b.putShort((short) 21).putShort((short) 4); // LAST_SWITCHED
        b.putShort((short) 256).putShort((short) (4 + 20));
        b.putInt(0x0a000001).putInt(0x0a000002).putInt(1).putInt(64).putInt(599_000);
        return b.array();
    }

    /**
     * The well-behaved exporter: a NetFlow v5 datagram of {@code flows} flows dated now (export
     * time {@code now}, flows ended a second before it), flow sequence {@code flowSequence}; flow
     * {@code k} of it carries {@link #packets(long)} and {@link #bytes(long)} of {@code
     * flowSequence + k}.
     */
    static byte[] goodV5(long now, long flowSequence, int flows) {
        ByteBuffer b = ByteBuffer.allocate(24 + 48 * flows);
        b.putShort((short) 5).putShort((short) flows).putInt(600_000).putInt((int) now);
        b.putInt(0).putInt((int) flowSequence).put((byte) 0).put((byte) 0).putShort((short) 0);
        for (int f = 0; f < flows; f++) {
            long n = flowSequence + f;
            b.putInt(0x0a000001).putInt(0x0a010000 + (int) (n & 0xffff)).putInt(0);
            b.putShort((short) (1 + f)).putShort((short) 2);
            b.putInt((int) packets(n)).putInt((int) bytes(n));
            b.putInt(590_000).putInt(599_000);
            b.putShort((short) (1024 + n % 60_000)).putShort((short) 443);
            b.put((byte) 0).put((byte) 0x18).put((byte) 6).put((byte) 0);
            b.putShort((short) 0).putShort((short) 0).put((byte) 24).put((byte) 24);
            b.putShort((short) 0);
        }
        return b.array();
    }

    static long packets(long n) {
        return n % 7 + 1;
    }

    static long bytes(long n) {
        return 100 * packets(n) + n % 13;
    }

    private static void ipfixHeader(ByteBuffer b, long now, int sequence, long domain) {
        b.putShort((short) 10).putShort((short) b.capacity()).putInt((int) now);
        b.putInt(sequence).putInt((int) domain);
    }
}
