// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.cli.AgentCommand;
import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.pcap.PacketBatcher;
import io.flowhouse.agent.pcap.Pcap4jPacketSource;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.PacketBatchCodec;
import io.flowhouse.codec.packet.PacketSummary;
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
 * Live capture through pcap4j/libpcap on the loopback interface: the capture sees exactly the UDP
 * datagrams the test sends to a port nobody else uses (BPF filter), with their addresses, ports and
 * lengths. Needs root (CAP_NET_RAW) and libpcap; CI runs it as root.
 */
class LiveCaptureITCase {

    private static final int DATAGRAMS = 500;

    @Test
    void capturesWhatTheTestSendsOnLoopback() throws Exception {
        boolean libpcap =
                Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libpcap.so.0.8"))
                        || Files.exists(Path.of("/usr/lib/x86_64-linux-gnu/libpcap.so"))
                        || Files.exists(Path.of("/usr/lib/libpcap.so.0.8"));
        ServiceRequirement.require(libpcap, "libpcap (apt-get install -y libpcap0.8)");
        ServiceRequirement.require(
                "root".equals(System.getProperty("user.name")),
                "root or CAP_NET_RAW for live capture on lo");

        int port;
        try (DatagramChannel probe = DatagramChannel.open()) {
            probe.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            port = ((InetSocketAddress) probe.getLocalAddress()).getPort();
        }
        AgentConfig config =
                AgentCommand.configFrom(
                        new String[] {"--interface", "lo", "--filter", "udp and dst port " + port});
        AgentMetrics metrics = new AgentMetrics();
        ConcurrentLinkedQueue<Outbound> out = new ConcurrentLinkedQueue<>();
        PacketBatcher batcher =
                new PacketBatcher(
                        "packets.raw", 1, 64, 20_000_000L, 4, out::add, metrics, Clock.systemUTC());
        Pcap4jPacketSource source = new Pcap4jPacketSource(config.packets(), metrics);
        try {
            CompletableFuture<Long> run =
                    CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    return source.run(batcher);
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            });
            // A receiving socket, so the kernel does not answer with ICMP port unreachable.
            try (DatagramChannel rx = DatagramChannel.open();
                    DatagramChannel tx = DatagramChannel.open()) {
                rx.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
                tx.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
                int txPort = ((InetSocketAddress) tx.getLocalAddress()).getPort();
                Thread.sleep(300); // libpcap is attached once the handle is open; margin for lo
                for (int i = 0; i < DATAGRAMS; i++) {
                    tx.send(ByteBuffer.wrap(new byte[100 + i % 50]), rx.getLocalAddress());
                }
                List<PacketSummary> seen = new ArrayList<>();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (seen.size() < DATAGRAMS && System.nanoTime() < deadline) {
                    Outbound o = out.poll();
                    if (o == null) {
                        Thread.sleep(20);
                        continue;
                    }
                    seen.addAll(PacketBatchCodec.decode(o.value()));
                }
                source.close();
                run.get(10, TimeUnit.SECONDS);
                assertThat(seen).hasSize(DATAGRAMS);
                long bytes = 0;
                for (PacketSummary s : seen) {
                    assertThat(s.srcAddr()).isEqualTo(IpAddress.parse("127.0.0.1"));
                    assertThat(s.dstPort()).isEqualTo(port);
                    assertThat(s.srcPort()).isEqualTo(txPort);
                    assertThat(s.protocol()).isEqualTo(17);
                    bytes += s.ipLength() - 28;
                }
                long expected = 0;
                for (int i = 0; i < DATAGRAMS; i++) {
                    expected += 100 + i % 50;
                }
                assertThat(bytes).isEqualTo(expected);
            }
        } finally {
            source.close();
        }
    }
}
