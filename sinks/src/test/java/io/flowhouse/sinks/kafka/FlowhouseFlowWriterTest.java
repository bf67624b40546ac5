// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.flow.SflowFields;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.schema.v1.Flow;
import io.flowhouse.sinks.testdata.CaptureFlows;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The direct writer gives protobuf-java's own bytes for every flow, whatever its values. */
class FlowhouseFlowWriterTest {

    private static final FlowRowIds IDS =
            new FlowRowIds() {
                @Override
                public long low(FlowRecord r) {
                    return r.sequenceNumber() * 0x9e37_79b9_7f4a_7c15L;
                }

                @Override
                public long high(FlowRecord r) {
                    return r.recordIndex() == 0 ? 0 : ~r.flowStartMillis();
                }
            };

    private final FlowhouseFlowWriter writer = new FlowhouseFlowWriter();

    private void assertSameBytes(FlowRecord r) {
        byte[] reference = FlowhouseFlowEncoder.toFlow(r, IDS).toByteArray();
        assertThat(writer.encode(r, IDS)).as(r.toString()).isEqualTo(reference);
    }

    private void assertSameBytes(FlowRecord r, FlowContext c) {
        byte[] reference = FlowhouseFlowEncoder.toFlow(r, IDS, c).toByteArray();
        assertThat(writer.encode(r, IDS, c)).as(r + " " + c).isEqualTo(reference);
    }

    @Test
    void everyFlowOfTheTestCapturesWithContext() throws Exception {
        Random rnd = new Random(19);
        int n = 0;
        for (CaptureFlows.Capture c : CaptureFlows.ALL) {
            for (FlowRecord r : CaptureFlows.decode(c)) {
                FlowContext ctx = context(rnd);
                assertSameBytes(r, ctx);
                n++;
            }
        }
        assertThat(n).isGreaterThan(20_000);
    }

    @Test
    void aFullContextReadsBackFieldForField() throws Exception {
        FlowContext c =
                new FlowContext(
                        new Attributes("edge1.fra", "edge", "fra1", "eu", "acme"),
                        new InterfaceContext(
                                "xe-0/0/1",
                                "Transit: ACME [AS64500]",
                                100_000,
                                Boundary.EXTERNAL,
                                "acme",
                                "transit"),
                        new InterfaceContext(
                                "ae1.200",
                                "cust: Gr\u00fcn GmbH",
                                10_000,
                                Boundary.INTERNAL,
                                "",
                                "pni"),
                        "DE",
                        "US",
                        15_169,
                        0xffff_fffeL,
                        new Attributes("dc-fra", "server", "fra1", "eu", "t1"),
                        new Attributes("customers", "customer", "", "", "t2"));
        FlowRecord r = FlowRecord.builder().srcAs(7).dstAs(8).build();
        assertSameBytes(r, c);
        Flow f = Flow.parseFrom(writer.encode(r, IDS, c));
        assertThat(f.getSrcAs()).isEqualTo(15_169); // the context's, not the exporter's 7
        assertThat(f.getDstAs() & 0xffff_ffffL).isEqualTo(0xffff_fffeL);
        assertThat(f.getExporterName()).isEqualTo("edge1.fra");
        assertThat(f.getExporterTenant()).isEqualTo("acme");
        assertThat(f.getInIfName()).isEqualTo("xe-0/0/1");
        assertThat(f.getInIfSpeed()).isEqualTo(100_000);
        assertThat(f.getInIfBoundary()).isEqualTo("external");
        assertThat(f.getInIfConnectivity()).isEqualTo("transit");
        assertThat(f.getOutIfDescription()).isEqualTo("cust: Gr\u00fcn GmbH");
        assertThat(f.getOutIfBoundary()).isEqualTo("internal");
        assertThat(f.getSrcCountry()).isEqualTo("DE");
        assertThat(f.getDstCountry()).isEqualTo("US");
        assertThat(f.getSrcNetName()).isEqualTo("dc-fra");
        assertThat(f.getDstNetRole()).isEqualTo("customer");
        assertThat(f.getDstNetSite()).isEmpty();
    }

    @Test
    void longNamesGrowTheBufferAndUnpairedSurrogatesAreWrittenAsProtobufJavaDoes() {
        String huge = "x".repeat(70_000);
        String odd = "a\ud800b\udc00c\ud83d\ude00"; // two lone halves, then a real pair
        FlowContext c =
                new FlowContext(
                        new Attributes(huge, odd, "", "", ""),
                        new InterfaceContext(odd, huge, 0, Boundary.UNDEFINED, "", ""),
                        InterfaceContext.UNKNOWN,
                        "",
                        "",
                        0,
                        0,
                        Attributes.NONE,
                        new Attributes("", "", "", "", huge));
        assertSameBytes(FlowRecord.builder().build(), c);
        // The buffer stays grown and still gives exact bytes for a small flow after it.
        assertSameBytes(FlowRecord.builder().srcAs(1).build(), context(new Random(1)));
    }

    /** A context with each field empty or set, about equally often. */
    static FlowContext context(Random rnd) {
        return new FlowContext(
                attributes(rnd),
                iface(rnd),
                iface(rnd),
                word(rnd),
                word(rnd),
                rnd.nextBoolean() ? 0 : rnd.nextLong() & 0xffff_ffffL,
                rnd.nextBoolean() ? 0 : rnd.nextLong() & 0xffff_ffffL,
                attributes(rnd),
                attributes(rnd),
                word(rnd),
                word(rnd));
    }

    @Test
    void vrfIdsAndNamesReadBack() throws Exception {
        FlowRecord r = FlowRecord.builder().vrfIds(4_000_000_001L, 10).build();
        assertSameBytes(r);
        Flow bare = Flow.parseFrom(writer.encode(r, IDS));
        assertThat(bare.getInVrfId() & 0xffff_ffffL).isEqualTo(4_000_000_001L);
        assertThat(bare.getOutVrfId()).isEqualTo(10);
        assertThat(bare.getInVrfName()).isEmpty();
        FlowContext c = context(new Random(3)).withVrfNames("mgmt-\u00e9", "cust-a:blue");
        assertSameBytes(r, c);
        Flow f = Flow.parseFrom(writer.encode(r, IDS, c));
        assertThat(f.getInVrfName()).isEqualTo("mgmt-\u00e9");
        assertThat(f.getOutVrfName()).isEqualTo("cust-a:blue");
    }

    private static Attributes attributes(Random rnd) {
        return rnd.nextInt(4) == 0
                ? Attributes.NONE
                : new Attributes(word(rnd), word(rnd), word(rnd), word(rnd), word(rnd));
    }

    private static InterfaceContext iface(Random rnd) {
        if (rnd.nextInt(4) == 0) {
            return InterfaceContext.UNKNOWN;
        }
        return new InterfaceContext(
                word(rnd),
                word(rnd),
                rnd.nextBoolean() ? 0 : value(rnd),
                Boundary.values()[rnd.nextInt(3)],
                word(rnd),
                word(rnd));
    }

    private static String word(Random rnd) {
        return switch (rnd.nextInt(4)) {
            case 0 -> "";
            case 1 -> "ge-0/0/" + rnd.nextInt(48);
            case 2 -> "Stra\u00dfe \u6771\u4eac \ud83d\ude80 " + rnd.nextInt(1_000);
            default -> "n".repeat(rnd.nextInt(300));
        };
    }

    @Test
    void aFlowWithEveryFieldAtItsDefault() throws Exception {
        FlowRecord r = FlowRecord.builder().build();
        assertSameBytes(r);
        // Only the addresses (16 zero bytes each, never empty) and nothing else.
        assertThat(Flow.parseFrom(writer.encode(r, IDS)).getSrcAddr().size()).isEqualTo(16);
    }

    @Test
    void everyFlowOfTheTestCaptures() {
        int n = 0;
        for (CaptureFlows.Capture c : CaptureFlows.ALL) {
            for (FlowRecord r : CaptureFlows.decode(c)) {
                assertSameBytes(r);
                n++;
            }
        }
        assertThat(n).isGreaterThan(20_000);
    }

    @Test
    void randomValuesIncludingNegativeAndUnsignedExtremes() {
        Random rnd = new Random(21);
        for (int i = 0; i < 20_000; i++) {
            FlowRecord.Builder b =
                    FlowRecord.builder()
                            .version(pick(rnd, 5, 9, 10, 105, 0))
                            .exporterAddress(address(rnd))
                            .exporterPort(rnd.nextInt(65_536))
                            .observationDomainId(rnd.nextLong() & 0xffff_ffffL)
                            .sequenceNumber(rnd.nextLong() & 0xffff_ffffL)
                            .position(rnd.nextInt(4), rnd.nextInt(40))
                            .exportTimeMillis(value(rnd))
                            .timeReceivedMillis(value(rnd))
                            .flowStartMillis(value(rnd))
                            .flowEndMillis(value(rnd))
                            .ipVersion(pick(rnd, 4, 6, 0))
                            .srcAddr(address(rnd))
                            .dstAddr(address(rnd))
                            .nextHop(address(rnd))
                            .srcPrefixLen(rnd.nextInt(129))
                            .dstPrefixLen(rnd.nextInt(129))
                            .srcPort(rnd.nextInt(65_536))
                            .dstPort(rnd.nextInt(65_536))
                            .protocol(rnd.nextInt(256))
                            .tcpFlags(rnd.nextInt(256))
                            .tos(rnd.nextInt(256))
                            .bytes(value(rnd))
                            .packets(value(rnd))
                            .reverseBytes(value(rnd))
                            .reversePackets(value(rnd))
                            .inputInterface(rnd.nextLong() & 0xffff_ffffL)
                            .outputInterface(rnd.nextBoolean() ? 0 : rnd.nextLong() & 0xffff_ffffL)
                            .vlanId(rnd.nextInt(4096))
                            .postVlanId(rnd.nextInt(4096))
                            .srcMac(rnd.nextLong() & 0xffff_ffff_ffffL)
                            .dstMac(rnd.nextBoolean() ? 0 : rnd.nextLong() & 0xffff_ffff_ffffL)
                            .srcAs(rnd.nextLong() & 0xffff_ffffL)
                            .dstAs(rnd.nextLong() & 0xffff_ffffL)
                            .direction(pick(rnd, -1, 0, 1, Integer.MIN_VALUE, Integer.MAX_VALUE))
                            .flowEndReason(rnd.nextInt(6))
                            .exportedTimes(value(rnd), value(rnd))
                            .vrfIds(
                                    rnd.nextBoolean() ? 0 : rnd.nextLong() & 0xffff_ffffL,
                                    rnd.nextBoolean() ? 0 : rnd.nextLong() & 0xffff_ffffL)
                            .samplingRate(value(rnd));
            if (rnd.nextBoolean()) {
                b.sflow(
                        new SflowFields(
                                address(rnd),
                                rnd.nextLong() & 0xffff_ffffL,
                                rnd.nextLong() & 0xffff_ffffL,
                                rnd.nextLong() & 0xffff_ffffL,
                                rnd.nextLong() & 0xffff_ffffL,
                                rnd.nextInt(4),
                                rnd.nextLong() & 0xff_ffffL,
                                rnd.nextLong() & 0xffff_ffffL,
                                rnd.nextBoolean() ? 0 : rnd.nextLong() & 0xffff_ffffL,
                                0,
                                rnd.nextInt(100),
                                0,
                                rnd.nextInt(100),
                                4,
                                0,
                                0,
                                IpAddress.UNSPECIFIED,
                                0,
                                0));
            }
            assertSameBytes(b.build());
            assertSameBytes(b.build(), context(rnd));
        }
    }

    private static int pick(Random rnd, int... values) {
        return values[rnd.nextInt(values.length)];
    }

    /** 0, small, large, negative and the extremes, about equally often. */
    private static long value(Random rnd) {
        return switch (rnd.nextInt(6)) {
            case 0 -> 0;
            case 1 -> rnd.nextInt(1_000);
            case 2 -> 1_700_000_000_000L + rnd.nextInt(1_000_000);
            case 3 -> -1 - rnd.nextInt(1_000);
            case 4 -> rnd.nextBoolean() ? Long.MAX_VALUE : Long.MIN_VALUE;
            default -> rnd.nextLong();
        };
    }

    private static IpAddress address(Random rnd) {
        return switch (rnd.nextInt(3)) {
            case 0 -> IpAddress.UNSPECIFIED;
            case 1 -> IpAddress.ofIpv4(rnd.nextInt());
            default -> new IpAddress(rnd.nextLong(), rnd.nextLong());
        };
    }
}
