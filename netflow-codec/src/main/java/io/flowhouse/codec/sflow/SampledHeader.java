// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.packet.PacketParser;
import io.flowhouse.codec.packet.PacketSummary;
import java.nio.ByteBuffer;

/**
 * {@code sampled_header} (flow record 0:1): the first bytes of the sampled frame, parsed with the
 * codec's {@link PacketParser} (Ethernet with 802.1Q tags, IPv4/IPv6, TCP/UDP/ICMP). A header cut
 * short keeps what was parsed before the cut; an unknown header protocol keeps only the lengths.
 */
final class SampledHeader {

    static final int FORMAT = 1;

    /** header_protocol, frame_length, stripped and the header's length word. */
    static final int FIXED_SIZE = 16;

    /** header_protocol ETHERNET-ISO88023. */
    static final int PROTOCOL_ETHERNET = 1;

    /** header_protocol IPv4: the header starts at the IP header. */
    static final int PROTOCOL_IPV4 = 11;

    /** header_protocol IPv6. */
    static final int PROTOCOL_IPV6 = 12;

    private SampledHeader() {}

    /**
     * Reads the record body at {@code at} ({@code len} bytes) of {@code b}; {@code view} is a
     * private duplicate of {@code b} whose position and limit this may move.
     */
    static void read(
            byte[] b,
            ByteBuffer view,
            int at,
            int len,
            FlowSampleState s,
            PacketSummary.Builder packet,
            ProblemTally t) {
        if (len < FIXED_SIZE) {
            FlowRecords.tooShort(t, FORMAT, len, FIXED_SIZE);
            return;
        }
        int protocol = Xdr.s32(b, at);
        s.hasHeader = true;
        s.frameLength = Xdr.u32(b, at + 4);
        s.stripped = Xdr.u32(b, at + 8);
        long headerLength = Xdr.u32(b, at + 12);
        long room = len - FIXED_SIZE;
        if (headerLength > room) {
            DecodeProblem.Kind k = DecodeProblem.Kind.RECORD_TRUNCATED;
            t.add(
                    k,
                    t.seen(k)
                            ? null
                            : "sampled header of "
                                    + headerLength
                                    + " bytes in a record of "
                                    + len
                                    + " (expected: <= "
                                    + room
                                    + ")");
            headerLength = room;
        }
        int linkType = linkType(protocol);
        if (linkType < 0 || headerLength == 0) {
            return;
        }
        int from = at + FIXED_SIZE;
        view.position(0);
        view.limit(from + (int) headerLength);
        view.position(from);
        // Whatever the result, the parser has filled the fields it reached (a truncated
        // transport header still leaves addresses and protocol) and cleared the rest.
        PacketParser.parse(view, linkType, 0L, 0, 0, packet);
        s.fromHeader(packet);
    }

    private static int linkType(int headerProtocol) {
        switch (headerProtocol) {
            case PROTOCOL_ETHERNET:
                return PacketParser.LINKTYPE_ETHERNET;
            case PROTOCOL_IPV4:
                return PacketParser.LINKTYPE_IPV4;
            case PROTOCOL_IPV6:
                return PacketParser.LINKTYPE_IPV6;
            default:
                return -1;
        }
    }
}
