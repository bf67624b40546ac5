// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.config.AgentKeys;
import io.flowhouse.agent.config.CidrSet;
import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.stamp.DatagramStamper;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real loopback sockets: large datagrams arrive whole on epoll (recvmmsg or not) and NIO. */
class UdpReceiverTest {

    @ParameterizedTest
    @ValueSource(strings = {"epoll-recvmmsg", "epoll", "nio"})
    void largeDatagramsArriveWhole(String transport) throws Exception {
        AgentConfig.Udp d = AgentKeys.defaults().udp();
        AgentConfig.Udp udp =
                new AgentConfig.Udp(
                        true,
                        List.of(new AgentConfig.Listener("127.0.0.1", 0)),
                        2,
                        1 << 20,
                        65_535,
                        List.of(),
                        true,
                        !transport.equals("nio"),
                        transport.equals("epoll") ? 1 : 16,
                        d.maxExporterStreams());
        LinkedBlockingQueue<Outbound> out = new LinkedBlockingQueue<>();
        AgentMetrics metrics = new AgentMetrics();
        DatagramToRawFlowHandler handler =
                new DatagramToRawFlowHandler(
                        CidrSet.of(List.of()),
                        "r",
                        "j",
                        true,
                        "a",
                        out::add,
                        metrics,
                        Clock.systemUTC(),
                        new DatagramStamper(1L, 16));
        try (UdpReceiver receiver = new UdpReceiver(udp, handler).start();
                DatagramChannel tx = DatagramChannel.open()) {
            assertThat(d.maxDatagramBytes()).isEqualTo(65_535);
            tx.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            InetSocketAddress target = receiver.localAddresses().get(0);
            int[] sizes = {20, 1_500, 2_049, 9_000, 65_507};
            for (int size : sizes) {
                ByteBuffer b = ByteBuffer.allocate(size);
                b.putShort(0, (short) 9); // v9 header version; the rest zero/filled
                for (int i = 20; i < size; i++) {
                    b.put(i, (byte) i);
                }
                tx.send(b, target);
            }
            for (int size : sizes) {
                Outbound o = out.poll(10, TimeUnit.SECONDS);
                assertThat(o).as("datagram of %d bytes", size).isNotNull();
                byte[] payload = RawDatagramCodec.decode(o.value()).payload();
                assertThat(payload).hasSize(size);
                for (int i = 20; i < size; i++) {
                    assertThat(payload[i]).isEqualTo((byte) i);
                }
            }
        }
    }
}
