// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.ipfix;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** {@code decode(encode(x)) == x} for the IPFIX encoder's flow templates, over many messages. */
class IpfixRoundTripPropertiesTest {

    private static final ExporterKey EXPORTER =
            new ExporterKey(IpAddress.parse("198.51.100.7"), 40000);

    @Provide
    Arbitrary<List<FlowRecord>> flowLists() {
        return flows().list().ofMinSize(1).ofMaxSize(120);
    }

    static Arbitrary<FlowRecord> flows() {
        Arbitrary<Integer> u8 = Arbitraries.integers().between(0, 255);
        Arbitrary<Integer> u16 = Arbitraries.integers().between(0, 65535);
        Arbitrary<Long> u32 = Arbitraries.longs().between(0, 0xffff_ffffL);
        Arbitrary<Long> u64 = Arbitraries.longs();
        Arbitrary<Long> mac = Arbitraries.longs().between(0, 0xffff_ffff_ffffL);
        Arbitrary<Boolean> v6 = Arbitraries.of(true, false);
        Arbitrary<long[]> addrs = Arbitraries.longs().array(long[].class).ofSize(6);
        Arbitrary<FlowRecord.Builder> a =
                Combinators.combine(v6, addrs, u16, u16, u8, u16, u8, u8)
                        .as(
                                (six, ad, sp, dp, proto, flags, tos, prefix) -> {
                                    FlowRecord.Builder b = FlowRecord.builder();
                                    if (six) {
                                        b.ipVersion(6)
                                                .srcAddr(new IpAddress(ad[0], ad[1]))
                                                .dstAddr(new IpAddress(ad[2], ad[3]))
                                                .nextHop(new IpAddress(ad[4], ad[5]));
                                    } else {
                                        int nh = (int) ad[4];
                                        b.ipVersion(4)
                                                .srcAddr(IpAddress.ofIpv4((int) ad[0]))
                                                .dstAddr(IpAddress.ofIpv4((int) ad[1]))
                                                .nextHop(
                                                        nh == 0
                                                                ? IpAddress.UNSPECIFIED
                                                                : IpAddress.ofIpv4(nh));
                                    }
                                    return b.srcPort(sp)
                                            .dstPort(dp)
                                            .protocol(proto)
                                            .tcpFlags(flags)
                                            .tos(tos)
                                            .srcPrefixLen(prefix)
                                            .dstPrefixLen(255 - prefix);
                                });
        Arbitrary<FlowRecord.Builder> b =
                Combinators.combine(a, u64, u64, u64, u64, u32, u32, u16)
                        .as(
                                (x, by, pk, rb, rp, in, out, vlan) ->
                                        x.bytes(by)
                                                .packets(pk)
                                                .reverseBytes(rb)
                                                .reversePackets(rp)
                                                .inputInterface(in)
                                                .outputInterface(out)
                                                .vlanId(vlan));
        return Combinators.combine(
                        b,
                        u16,
                        mac,
                        mac,
                        u32,
                        Arbitraries.of(-1, 0, 1),
                        u8,
                        Arbitraries.longs().between(0, 4_102_444_800_000L))
                .flatAs(
                        (x, pv, sm, dm, as, dir, reason, start) ->
                                Combinators.combine(
                                                Arbitraries.longs().between(0, 86_400_000L),
                                                Arbitraries.longs().between(1, 0xffff_ffffL),
                                                u32)
                                        .as(
                                                (dur, rate, das) ->
                                                        x.postVlanId(pv)
                                                                .srcMac(sm)
                                                                .dstMac(dm)
                                                                .srcAs(as)
                                                                .dstAs(das)
                                                                .direction(dir)
                                                                .flowEndReason(reason)
                                                                .flowStartMillis(start)
                                                                .flowEndMillis(start + dur)
                                                                .samplingRate(rate)
                                                                .build()));
    }

    @Property(tries = 300)
    void decodeOfEncodeIsIdentity(
            @ForAll("flowLists") List<FlowRecord> flows,
            @ForAll @IntRange(min = 300, max = 9000) int mtu,
            @ForAll @IntRange(min = 0, max = 100_000) int domain)
            throws Exception {
        IpfixEncoder enc = new IpfixEncoder();
        NetflowDecoder dec = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        ByteBuffer buf = ByteBuffer.allocate(mtu);
        List<FlowRecord> decoded = new ArrayList<>();
        List<FlowRecord> expected = new ArrayList<>();
        long exportSecs = 1_700_000_000L;
        int from = 0;
        boolean first = true;
        long expectSeq = 0;
        while (from < flows.size()) {
            buf.clear();
            int n = enc.encodeFlows(buf, domain, exportSecs, flows, from, first);
            if (n == 0 && first) {
                // templates alone; data follows in later messages
                buf.flip();
                dec.decode(buf, new DecodeContext(EXPORTER, 5), cache);
                first = false;
                continue;
            }
            assertThat(n).isPositive();
            buf.flip();
            assertThat(buf.remaining()).isLessThanOrEqualTo(mtu);
            DecodeResult r = dec.decode(buf, new DecodeContext(EXPORTER, 5), cache);
            assertThat(r.problems()).isEmpty();
            assertThat(r.sequenceNumber()).isEqualTo(expectSeq);
            expectSeq += n;
            // Positions: records fill their sets in order, each set numbered after the sets
            // (templates included) before it in the message.
            int set = -1;
            int inSet = 0;
            for (int i = 0; i < n; i++) {
                FlowRecord got = r.records().get(i);
                if (got.setIndex() != set) {
                    assertThat(got.setIndex()).isGreaterThan(set);
                    set = got.setIndex();
                    inSet = 0;
                }
                assertThat(got.recordInSet()).isEqualTo(inSet++);
                expected.add(
                        flows.get(from + i).toBuilder()
                                .version(10)
                                .exporterAddress(EXPORTER.address())
                                .exporterPort(EXPORTER.port())
                                .observationDomainId(domain)
                                .sequenceNumber(r.sequenceNumber())
                                .position(set, inSet - 1)
                                .exportTimeMillis(exportSecs * 1000)
                                .timeReceivedMillis(5)
                                .build());
            }
            decoded.addAll(r.records());
            from += n;
            first = false;
        }
        assertThat(decoded).containsExactlyElementsOf(expected);
        assertThat(enc.sequenceNumber(domain)).isEqualTo(flows.size());
    }
}
