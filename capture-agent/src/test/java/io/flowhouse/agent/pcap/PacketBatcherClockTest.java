// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketClockMark;
import io.flowhouse.testkit.TestDataDir;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Clock marks: under every bucket's key, after that bucket's packets, at the right packet time. */
class PacketBatcherClockTest {

    private static final int BUCKETS = 16;

    private final List<Outbound> sent = new ArrayList<>();
    private final AgentMetrics metrics = new AgentMetrics();

    private PacketBatcher batcher() {
        return new PacketBatcher(
                "packets.raw",
                3,
                64,
                Long.MAX_VALUE,
                BUCKETS,
                sent::add,
                metrics,
                Clock.systemUTC());
    }

    @Test
    void aFileEndsWithAnEndOfCaptureMarkPerBucketAfterItsPackets() throws Exception {
        PacketBatcher b = batcher();
        long frames =
                new PcapFilePacketSource(TestDataDir.file("packets-synthetic.pcap"), 0).run(b);
        assertThat(frames).isEqualTo(42_173L);
        b.endOfCapture();
        long latest = Long.MIN_VALUE;
        long packets = 0;
        Set<ByteBuffer> endedKeys = new HashSet<>();
        for (Outbound o : sent) {
            PacketClockMark m = PacketClockMark.decode(o.value());
            ByteBuffer key = ByteBuffer.wrap(o.key());
            if (m == null) {
                assertThat(endedKeys)
                        .as("no packet after its bucket's end mark")
                        .doesNotContain(key);
                for (var p : PacketBatchCodec.decode(o.value())) {
                    latest = Math.max(latest, p.timestampNanos());
                    packets++;
                }
            } else {
                assertThat(m.kind()).isEqualTo(PacketClockMark.Kind.END_OF_CAPTURE);
                assertThat(m.interfaceIndex()).isEqualTo(3);
                endedKeys.add(key);
            }
        }
        assertThat(packets).isEqualTo(42_173L);
        assertThat(endedKeys).hasSize(BUCKETS);
        for (Outbound o : sent.subList(sent.size() - BUCKETS, sent.size())) {
            assertThat(PacketClockMark.decode(o.value()).timestampNanos()).isEqualTo(latest);
        }
        assertThat(metrics.endOfCaptureMarks()).isEqualTo(BUCKETS);
        assertThat(metrics.clockTicks()).isZero();
    }

    @Test
    void aQuietLiveCaptureTicksOnTheWallClockFromItsLatestPacket() throws Exception {
        PacketBatcher b = batcher().ticksWhenQuiet(Duration.ofSeconds(1));
        b.idle();
        assertThat(sent).as("no tick before the first packet").isEmpty();
        // One packet from the trace, then quiet.
        PcapFilePacketSource file =
                new PcapFilePacketSource(TestDataDir.file("packets-synthetic.pcap"), 0);
        long[] first = {Long.MIN_VALUE};
        file.run(
                new PacketSource.FrameConsumer() {
                    @Override
                    public void frame(ByteBuffer f, int linkType, long ts, int len) {
                        if (first[0] == Long.MIN_VALUE) {
                            first[0] = ts;
                            b.frame(f, linkType, ts, len);
                            file.close();
                        }
                    }
                });
        b.flush();
        int afterPacket = sent.size();
        assertThat(afterPacket).isEqualTo(1);
        Thread.sleep(1_100);
        b.idle();
        List<Outbound> ticks = sent.subList(afterPacket, sent.size());
        assertThat(ticks).hasSize(BUCKETS);
        for (Outbound o : ticks) {
            PacketClockMark m = PacketClockMark.decode(o.value());
            assertThat(m.kind()).isEqualTo(PacketClockMark.Kind.TICK);
            assertThat(m.timestampNanos() - first[0])
                    .isGreaterThanOrEqualTo(Duration.ofMillis(1_100).toNanos())
                    .isLessThan(Duration.ofSeconds(5).toNanos());
        }
        // Not again before another tick interval has passed.
        b.idle();
        assertThat(sent).hasSize(afterPacket + BUCKETS);
        assertThat(metrics.clockTicks()).isEqualTo(BUCKETS);
    }
}
