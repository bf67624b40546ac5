// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Test-side mapping between flows and what ntopng reads, from the reference document's field table
 * (nProbe ids, PEN 0): a decoded TLV record back to a {@link FlowRecord}, and the projection of a
 * sent flow onto the fields the ZMQ format carries.
 */
final class ZmqFlows {

    private ZmqFlows() {}

    /** Rebuilds a flow from one TLV record, by nProbe field id. */
    static FlowRecord fromTlv(NtopngWireDecoder.TlvRecord r) {
        FlowRecord.Builder b = FlowRecord.builder();
        int ipVersion = r.uint(60).intValue();
        b.ipVersion(ipVersion);
        if (ipVersion == 4) {
            b.srcAddr(IpAddress.ofIpv4(r.uint(8).intValue()));
            b.dstAddr(IpAddress.ofIpv4(r.uint(12).intValue()));
            b.srcPrefixLen(r.uint(9).intValue());
            b.dstPrefixLen(r.uint(13).intValue());
        } else {
            b.srcAddr(IpAddress.parse(r.string(27)));
            b.dstAddr(IpAddress.parse(r.string(28)));
            b.srcPrefixLen(r.uint(29).intValue());
            b.dstPrefixLen(r.uint(30).intValue());
        }
        if (r.items().containsKey(15)) {
            b.nextHop(IpAddress.ofIpv4(r.uint(15).intValue()));
        } else if (r.items().containsKey(62)) {
            b.nextHop(IpAddress.parse(r.string(62)));
        }
        b.srcPort(r.uint(7).intValue()).dstPort(r.uint(11).intValue());
        b.protocol(r.uint(4).intValue()).tos(r.uint(5).intValue());
        b.tcpFlags(r.uint(6).intValue());
        b.bytes(r.uint(1)).packets(r.uint(2));
        b.reverseBytes(r.uint(23)).reversePackets(r.uint(24));
        long startMs = r.uint(152);
        long endMs = r.uint(153);
        if (r.uint(22) != startMs / 1000 || r.uint(21) != endMs / 1000) {
            throw new AssertionError("FIRST/LAST_SWITCHED disagree with 152/153: " + r);
        }
        b.flowStartMillis(startMs).flowEndMillis(endMs);
        b.inputInterface(r.uint(10)).outputInterface(r.uint(14));
        b.srcAs(r.uint(16)).dstAs(r.uint(17));
        b.srcMac(mac(r.string(56))).dstMac(mac(r.string(57)));
        b.vlanId(r.uint(58).intValue());
        b.direction(r.items().containsKey(61) ? r.uint(61).intValue() : -1);
        b.samplingRate(r.uint(34));
        if (r.items().containsKey(130)) {
            b.exporterAddress(IpAddress.parse(r.string(130)));
        } else if (r.items().containsKey(131)) {
            b.exporterAddress(IpAddress.parse(r.string(131)));
        }
        String reason = r.string(136);
        b.flowEndReason(reason == null ? 0 : endReason(reason));
        return b.build();
    }

    private static int endReason(String text) {
        return switch (text) {
            case "idle timeout" -> 1;
            case "active timeout" -> 2;
            case "end of flow" -> 3;
            case "forced end" -> 4;
            case "lack of resources" -> 5;
            default -> Integer.parseInt(text.substring("reason ".length()));
        };
    }

    private static long mac(String s) {
        if (s.length() != 17) {
            throw new AssertionError("MAC " + s);
        }
        return Long.parseLong(s.replace(":", ""), 16);
    }

    /** The flow as ntopng sees it: header-only fields cleared, DST_VLAN not carried. */
    static FlowRecord project(FlowRecord f) {
        FlowRecord.Builder b =
                f.toBuilder()
                        .version(0)
                        .exporterPort(0)
                        .observationDomainId(0)
                        .sequenceNumber(0)
                        .recordIndex(0)
                        .exportTimeMillis(0)
                        .timeReceivedMillis(0)
                        .postVlanId(0);
        if (f.ipVersion() == 0) {
            b.ipVersion(!f.srcAddr().isIpv4() && !f.srcAddr().isUnspecified() ? 6 : 4);
        }
        return b.build();
    }

    /** Deterministic varied flows: IPv4 and IPv6, biflows, 64-bit counters, every end reason. */
    static List<FlowRecord> synthetic(int n, long seed) {
        Random rnd = new Random(seed);
        List<FlowRecord> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            boolean v6 = rnd.nextInt(4) == 0;
            long start = 1_705_320_000_000L + rnd.nextInt(600_000);
            FlowRecord.Builder b =
                    FlowRecord.builder()
                            .version(10)
                            .exporterAddress(
                                    rnd.nextBoolean()
                                            ? IpAddress.parse("192.0.2.1")
                                            : IpAddress.parse("2001:db8::1"))
                            .exporterPort(40000 + rnd.nextInt(1000))
                            .observationDomainId(rnd.nextInt(10))
                            .sequenceNumber(i)
                            .recordIndex(i % 30)
                            .flowStartMillis(start)
                            .flowEndMillis(start + rnd.nextInt(120_000))
                            .ipVersion(v6 ? 6 : 4)
                            .srcPort(rnd.nextInt(65536))
                            .dstPort(rnd.nextInt(65536))
                            .protocol(rnd.nextInt(256))
                            .tcpFlags(rnd.nextInt(256))
                            .tos(rnd.nextInt(256))
                            .bytes(rnd.nextInt(10) == 0 ? rnd.nextLong() : rnd.nextInt(1 << 20))
                            .packets(1 + rnd.nextInt(1000))
                            .inputInterface(rnd.nextInt(70000))
                            .outputInterface(rnd.nextInt(3) == 0 ? 0xffff_fffeL : rnd.nextInt(9))
                            .vlanId(rnd.nextInt(5) == 0 ? rnd.nextInt(4096) : 0)
                            .postVlanId(rnd.nextInt(4096))
                            .srcMac(rnd.nextLong() & 0xffff_ffff_ffffL)
                            .dstMac(rnd.nextLong() & 0xffff_ffff_ffffL)
                            .srcAs(rnd.nextInt(3) == 0 ? 4_200_000_000L : rnd.nextInt(65536))
                            .dstAs(rnd.nextInt(65536))
                            .direction(rnd.nextInt(3) - 1)
                            .flowEndReason(rnd.nextInt(7))
                            .samplingRate(1 + rnd.nextInt(3) * 511L);
            if (rnd.nextInt(3) == 0) {
                b.reverseBytes(rnd.nextInt(1 << 24)).reversePackets(rnd.nextInt(1000));
            }
            if (v6) {
                b.srcAddr(new IpAddress(0x2001_0db8_0000_0000L | rnd.nextInt(), rnd.nextLong()))
                        .dstAddr(new IpAddress(0x2001_0db8_0000_0000L, rnd.nextInt(5)))
                        .srcPrefixLen(rnd.nextInt(129))
                        .dstPrefixLen(rnd.nextInt(129))
                        .nextHop(
                                rnd.nextBoolean()
                                        ? IpAddress.UNSPECIFIED
                                        : IpAddress.parse("fe80::1"));
            } else {
                b.srcAddr(IpAddress.ofIpv4(rnd.nextInt()))
                        .dstAddr(IpAddress.ofIpv4(0xc6336400 | rnd.nextInt(256)))
                        .srcPrefixLen(rnd.nextInt(33))
                        .dstPrefixLen(rnd.nextInt(33))
                        .nextHop(
                                rnd.nextBoolean()
                                        ? IpAddress.UNSPECIFIED
                                        : IpAddress.ofIpv4(0xcb007101));
            }
            out.add(b.build());
        }
        return out;
    }
}
