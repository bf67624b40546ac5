// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.flow.SflowFields;
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
