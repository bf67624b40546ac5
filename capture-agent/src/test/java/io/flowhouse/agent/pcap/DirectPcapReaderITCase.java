// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.pcap;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.codec.packet.ParseResult;
import io.flowhouse.testkit.ServiceRequirement;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The direct {@code pcap_next_ex} read path against pcap4j's own: two captures on loopback with the
 * same filter, one reading through {@link DirectPcapReader}, one through pcap4j, see the same
 * datagrams and make the same summaries. A 64-byte snap length cuts every payload, so lengths must
 * come from the headers and libpcap's original length, not from the captured bytes.
 */
class DirectPcapReaderITCase {

    private static final int DATAGRAMS = 300;

    @Test
    void directReadsMakeTheSameSummariesAsPcap4j() throws Exception {
        ServiceRequirement.require(
                Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libpcap.so.0.8"))
                        || Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libpcap.so")),
                "libpcap (apt-get install -y libpcap0.8)");
        ServiceRequirement.require(
                "root".equals(System.getProperty("user.name")),
                "root or CAP_NET_RAW for live capture on lo");
        assertThat(DirectPcapReader.available()).isTrue();

        int port;
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            port = ((InetSocketAddress) probe.getLocalAddress()).getPort();
        }
        AgentConfig.Packets config =
                AgentCommand.configFrom(
                                new String[] {
                                    "--interface",
                                    "lo",
                                    "--filter",
                                    "udp and dst port " + port,
                                    "--snaplen",
                                    "64"
                                })
                        .packets();
        Capture direct = new Capture(config, true);
        Capture viaPcap4j = new Capture(config, false);
        long before = System.currentTimeMillis() * 1_000_000L;
        List<Integer> sizes = new ArrayList<>();
        try (DatagramChannel rx = DatagramChannel.open();
                DatagramChannel tx = DatagramChannel.open()) {
            rx.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
            tx.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            Thread.sleep(300); // both handles attached; margin for lo
            for (int i = 0; i < DATAGRAMS; i++) {
                int size = 100 + (i * 37) % 1300;
                sizes.add(size);
                tx.send(ByteBuffer.wrap(new byte[size]), rx.getLocalAddress());
            }
            List<PacketSummary> a = direct.await(DATAGRAMS);
            List<PacketSummary> b = viaPcap4j.await(DATAGRAMS);
            long after = System.currentTimeMillis() * 1_000_000L + 1_000_000L;

            assertThat(a).hasSize(DATAGRAMS);
            assertThat(b).hasSize(DATAGRAMS);
            assertThat(direct.metrics.packetCount(ParseResult.OK)).isEqualTo(DATAGRAMS);
            // The same packets seen through pcap4j: the same summaries, timestamps included.
            assertThat(a).isEqualTo(b);
            for (int i = 0; i < DATAGRAMS; i++) {
                PacketSummary s = a.get(i);
                assertThat(s.srcAddr()).isEqualTo(IpAddress.parse("127.0.0.1"));
                assertThat(s.dstPort()).isEqualTo(port);
                assertThat(s.ipLength()).isEqualTo(28 + sizes.get(i));
                assertThat(s.wireLength()).isEqualTo(14 + 28 + sizes.get(i));
                assertThat(s.timestampNanos()).isBetween(before, after);
            }
        } finally {
            direct.stop();
            viaPcap4j.stop();
        }
    }

    /** One capture on its own thread, summaries decoded from the batches it sends. */
    private static final class Capture {
        final AgentMetrics metrics = new AgentMetrics();
        final ConcurrentLinkedQueue<Outbound> out = new ConcurrentLinkedQueue<>();
        final Pcap4jPacketSource source;
        final CompletableFuture<Long> run;

        Capture(AgentConfig.Packets config, boolean direct) throws Exception {
            source = new Pcap4jPacketSource(config, metrics, direct);
            PacketBatcher batcher =
                    new PacketBatcher(
                            "packets.raw",
                            1,
                            64,
                            20_000_000L,
                            1,
                            out::add,
                            metrics,
                            Clock.systemUTC());
            run =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return source.run(batcher);
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            });
        }

        List<PacketSummary> await(int n) throws InterruptedException {
            List<PacketSummary> seen = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (seen.size() < n && System.nanoTime() < deadline) {
                Outbound o = out.poll();
                if (o == null) {
                    Thread.sleep(20);
                    continue;
                }
                seen.addAll(PacketBatchCodec.decode(o.value()));
            }
            return seen;
        }

        void stop() throws Exception {
            source.close();
            run.get(10, TimeUnit.SECONDS);
        }
    }
}
