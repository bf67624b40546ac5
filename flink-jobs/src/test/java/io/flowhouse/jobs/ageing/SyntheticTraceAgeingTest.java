// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.packet.PacketSummary;
import java.time.Duration;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.junit.jupiter.api.Test;

/**
 * The shared synthetic trace ({@code packets-synthetic.pcap}, 42,173 packets, 600 s) through the
 * flow cache: packet and IP-byte totals equal the trace exactly, and the flow counts with the
 * peers' timeouts are within a documented margin of what softflowd (2,991 uniflows, 1,673 biflows)
 * and pmacct (2,995) exported from the same trace.
 *
 * <p>Why not equal: softflowd checks expiry only every {@code expint} (60 s), so its flows can
 * outlive maxlife=120 by up to a minute, and it evicts the oldest flows when more than 512 ({@code
 * -m 512}) are active; pmacct keys on ToS and checks every 5 s. Our cache cuts exactly at the
 * timeout on packet time. Measured (this test prints it): 2,997 uniflows (softflowd 2,991: +0.2 %),
 * 1,546 biflows (softflowd 1,673: -7.6 %; not analysed further; one difference we know of on our
 * side: ICMP echo request and reply join into one biflow), 2,997 with pmacct timeouts (pmacct
 * 2,995: +0.1 %). The margin asserted is 10 %.
 */
class SyntheticTraceAgeingTest {

    private static final double MARGIN = 0.10;

    /** softflowd 1.1.0 defaults with -t maxlife=120: tcp 3600, tcp.fin 300, udp/icmp 300. */
    private static AgeingSettings softflowd(boolean biflow) {
        return AgeingSettings.defaults()
                .withTimeouts(
                        Duration.ofSeconds(120), Duration.ofSeconds(300), Duration.ofSeconds(300))
                .withBiflow(biflow)
                .withMaxActiveFlows(0);
    }

    /** pmacct nfprobe_timeouts: tcp=60, tcp.fin/rst=10, udp/icmp=30, maxlife=120. */
    private static AgeingSettings pmacct() {
        return AgeingSettings.defaults()
                .withTimeouts(
                        Duration.ofSeconds(120), Duration.ofSeconds(30), Duration.ofSeconds(10))
                .withMaxActiveFlows(0);
    }

    static List<FlowRecord> age(List<PacketSummary> packets, AgeingSettings s) throws Exception {
        var h =
                ProcessFunctionTestHarnesses.forKeyedProcessFunction(
                        new FlowAgeingFunction(s),
                        new PacketFlowKeySelector(s.biflow()),
                        TypeInformation.of(PacketFlowKey.class));
        try {
            h.open();
            long maxSeen = Long.MIN_VALUE;
            int n = 0;
            for (PacketSummary p : packets) {
                long ts = p.timestampNanos() / 1_000_000L;
                h.processElement(p, ts);
                maxSeen = Math.max(maxSeen, ts);
                if (++n % 500 == 0) {
                    h.processWatermark(maxSeen - 1_000);
                }
            }
            h.processWatermark(Long.MAX_VALUE);
            assertThat(h.numKeyedStateEntries()).isZero();
            assertThat(h.numEventTimeTimers()).isZero();
            return h.extractOutputValues();
        } finally {
            h.close();
        }
    }

    @Test
    void traceTotalsAreExactAndFlowCountsNearThePeers() throws Exception {
        List<PacketSummary> packets = Packets.trace();
        assertThat(packets).hasSize((int) Packets.TRACE_PACKETS);

        List<FlowRecord> uni = age(packets, softflowd(false));
        assertThat(uni.stream().mapToLong(FlowRecord::packets).sum())
                .isEqualTo(Packets.TRACE_PACKETS);
        assertThat(uni.stream().mapToLong(FlowRecord::bytes).sum()).isEqualTo(Packets.TRACE_BYTES);
        assertThat((double) uni.size()).isBetween(2_991 * (1 - MARGIN), 2_991 * (1 + MARGIN));

        List<FlowRecord> bi = age(packets, softflowd(true));
        assertThat(bi.stream().mapToLong(f -> f.packets() + f.reversePackets()).sum())
                .isEqualTo(Packets.TRACE_PACKETS);
        assertThat(bi.stream().mapToLong(f -> f.bytes() + f.reverseBytes()).sum())
                .isEqualTo(Packets.TRACE_BYTES);
        assertThat((double) bi.size()).isBetween(1_673 * (1 - MARGIN), 1_673 * (1 + MARGIN));

        List<FlowRecord> pm = age(packets, pmacct());
        assertThat(pm.stream().mapToLong(FlowRecord::packets).sum())
                .isEqualTo(Packets.TRACE_PACKETS);
        assertThat(pm.stream().mapToLong(FlowRecord::bytes).sum()).isEqualTo(Packets.TRACE_BYTES);
        System.out.printf(
                java.util.Locale.ROOT,
                "synthetic trace: uniflows %d (softflowd 2991), biflows %d (softflowd 1673),"
                        + " pmacct timeouts %d (pmacct 2995)%n",
                uni.size(),
                bi.size(),
                pm.size());
        assertThat((double) pm.size()).isBetween(2_995 * (1 - MARGIN), 2_995 * (1 + MARGIN));
    }
}
