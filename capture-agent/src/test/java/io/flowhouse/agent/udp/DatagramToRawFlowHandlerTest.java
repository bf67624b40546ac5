// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.udp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.config.CidrSet;
import io.flowhouse.agent.kafka.DatagramBatcher;
import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.stamp.DatagramStamper;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.envelope.SflowAgentKey;
import io.flowhouse.codec.flow.IpAddress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DatagramToRawFlowHandlerTest {

    private static final Clock CLOCK =
            Clock.fixed(Instant.ofEpochMilli(1_700_000_000_000L), ZoneOffset.UTC);
    private static final InetSocketAddress COLLECTOR = new InetSocketAddress("127.0.0.1", 2055);

    private final List<Outbound> out = new ArrayList<>();
    private final AgentMetrics metrics = new AgentMetrics();
    private final DatagramStamper stamper = new DatagramStamper(77L, 2);

    private EmbeddedChannel channel(List<String> allowed, boolean forwardRejected) {
        return new EmbeddedChannel(
                new DatagramToRawFlowHandler(
                        CidrSet.of(allowed),
                        "flows.raw",
                        "flows.rejected",
                        forwardRejected,
                        "agent-7",
                        out::add,
                        metrics,
                        CLOCK,
                        stamper));
    }

    /** A minimal valid IPFIX message: header only, length 16. */
    private static byte[] ipfix() {
        return new byte[] {0, 10, 0, 16, 0x65, 0x5f, 0, 0, 0, 0, 0, 1, 0, 0, 0, 8};
    }

    /** An sFlow v5 header with no samples: agent 192.0.2.1 (or 2001:db8::1), sub-agent 7. */
    private static byte[] sflow(boolean ipv6) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(ipv6 ? 40 : 28);
        b.putInt(5).putInt(ipv6 ? 2 : 1);
        b.put(ipv6 ? IpAddress.parse("2001:db8::1").toBytes() : new byte[] {(byte) 192, 0, 2, 1});
        b.putInt(7).putInt(42).putInt(1000).putInt(0);
        return b.array();
    }

    /** A NetFlow v5 header with one zeroed record: 16-bit version 5 where sFlow has 32 bits. */
    private static byte[] netflowV5() {
        byte[] b = new byte[24 + 48];
        b[1] = 5;
        b[3] = 1;
        return b;
    }

    private static byte[] large() {
        // A v9 header followed by 9,000 bytes: more than Netty's 2,048 default and an MTU.
        byte[] b = new byte[9_020];
        b[1] = 9;
        b[3] = 1;
        for (int i = 20; i < b.length; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    private static DatagramPacket packet(byte[] payload, String host, int port) {
        ByteBuf buf = Unpooled.copiedBuffer(payload);
        return new DatagramPacket(buf, COLLECTOR, new InetSocketAddress(host, port));
    }

    @Test
    void oneSflowAgentsDatagramsFromTwoSocketsShareABatchRecordEachWithItsOwnStamp() {
        try (DatagramBatcher batcher =
                new DatagramBatcher(
                        out::add,
                        "flows.raw",
                        4,
                        1 << 20,
                        java.time.Duration.ofHours(1),
                        metrics)) {
            EmbeddedChannel ch =
                    new EmbeddedChannel(
                            new DatagramToRawFlowHandler(
                                    CidrSet.of(List.of()),
                                    "flows.raw",
                                    "flows.rejected",
                                    true,
                                    "agent-7",
                                    out::add,
                                    batcher,
                                    metrics,
                                    CLOCK,
                                    new DatagramStamper(78L, 8)));
            ch.writeInbound(
                    packet(sflow(false), "198.51.100.1", 40000),
                    packet(sflow(false), "198.51.100.1", 40001),
                    packet(sflow(false), "198.51.100.1", 40000),
                    packet(ipfix(), "192.0.2.10", 40000),
                    packet(sflow(false), "198.51.100.1", 40001));
            assertThat(out).hasSize(1);
            Outbound r = out.get(0);
            assertThat(r.datagrams()).isEqualTo(4);
            assertThat(SflowAgentKey.decode(r.key()))
                    .isEqualTo(new SflowAgentKey(IpAddress.parse("192.0.2.1"), 7));
            List<RawDatagram> in = RawDatagramCodec.decodeAll(r.value());
            assertThat(in)
                    .extracting(d -> d.exporter().port())
                    .containsExactly(40000, 40001, 40000, 40001);
            assertThat(in).extracting(d -> d.stamp().sequence()).containsExactly(0L, 0L, 1L, 1L);
        }
        // The IPFIX datagram, alone at close: its own envelope.
        assertThat(out).hasSize(2);
        assertThat(RawDatagramCodec.decode(out.get(1).value()).exporter().port()).isEqualTo(40000);
    }

    @Test
    void acceptedDatagramBecomesARawEnvelopeKeyedByExporter() {
        EmbeddedChannel ch = channel(List.of(), true);
        DatagramPacket p1 = packet(ipfix(), "192.0.2.10", 40000);
        DatagramPacket p2 = packet(large(), "2001:db8::5", 40001);
        ch.writeInbound(p1, p2);
        assertThat(p1.refCnt()).isZero();
        assertThat(p2.refCnt()).isZero();
        assertThat(out).hasSize(2);

        Outbound r = out.get(0);
        assertThat(r.topic()).isEqualTo("flows.raw");
        assertThat(r.partition()).isEqualTo(-1);
        assertThat(r.timestampMillis()).isEqualTo(1_700_000_000_000L);
        assertThat(ExporterPartitionKey.decode(r.key()))
                .isEqualTo(new ExporterKey(IpAddress.parse("192.0.2.10"), 40000));
        assertThat(RawDatagramCodec.decode(r.value()))
                .isEqualTo(
                        RawDatagram.stamped(
                                new ExporterKey(IpAddress.parse("192.0.2.10"), 40000),
                                1_700_000_000_000L,
                                "agent-7",
                                ipfix(),
                                new DatagramStamp(77L, 1L, 0L)));

        RawDatagram big = RawDatagramCodec.decode(out.get(1).value());
        assertThat(big.payload()).isEqualTo(large());
        assertThat(big.exporterAddress()).isEqualTo(IpAddress.parse("2001:db8::5"));
        assertThat(metrics.datagrams()).isEqualTo(2);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void sflowIsKeyedByAgentAndSubAgentAndNetflowV5OnTheSamePortByExporter() {
        EmbeddedChannel ch = channel(List.of(), true);
        ch.writeInbound(
                packet(sflow(false), "198.51.100.1", 40000),
                packet(netflowV5(), "198.51.100.1", 40000),
                packet(sflow(true), "198.51.100.1", 40001));
        assertThat(out).hasSize(3);
        assertThat(out).extracting(Outbound::topic).containsOnly("flows.raw");
        assertThat(SflowAgentKey.decode(out.get(0).key()))
                .isEqualTo(new SflowAgentKey(IpAddress.parse("192.0.2.1"), 7));
        assertThat(ExporterPartitionKey.decode(out.get(1).key()))
                .isEqualTo(new ExporterKey(IpAddress.parse("198.51.100.1"), 40000));
        assertThat(SflowAgentKey.decode(out.get(2).key()))
                .isEqualTo(new SflowAgentKey(IpAddress.parse("2001:db8::1"), 7));
        // The envelope and its stamp stay the sender's, as for NetFlow.
        RawDatagram d = RawDatagramCodec.decode(out.get(0).value());
        assertThat(d.exporterAddress()).isEqualTo(IpAddress.parse("198.51.100.1"));
        assertThat(d.exporterPort()).isEqualTo(40000);
        assertThat(d.payload()).isEqualTo(sflow(false));
        assertThat(d.stamp()).isEqualTo(new DatagramStamp(77L, 1L, 0L));
        assertThat(RawDatagramCodec.decode(out.get(1).value()).stamp())
                .isEqualTo(new DatagramStamp(77L, 1L, 1L));
        assertThat(metrics.rejectedCount()).isZero();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void garbageGoesToTheRejectedTopicWithItsReason() {
        EmbeddedChannel ch = channel(List.of(), true);
        byte[] garbage = "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII);
        ch.writeInbound(packet(garbage, "192.0.2.10", 1234));
        assertThat(out).hasSize(1);
        Outbound r = out.get(0);
        assertThat(r.topic()).isEqualTo("flows.rejected");
        assertThat(r.reason()).isEqualTo("UNSUPPORTED_VERSION");
        RejectedDatagram rej = RawDatagramCodec.decodeRejected(r.value());
        assertThat(rej.reason()).isEqualTo("UNSUPPORTED_VERSION");
        assertThat(rej.detail()).contains("version");
        assertThat(rej.datagram().payload()).isEqualTo(garbage);
        assertThat(metrics.rejectedCount()).isEqualTo(1);
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void rejectedAreCountedAndDroppedWhenNotForwarded() {
        EmbeddedChannel ch = channel(List.of(), false);
        ch.writeInbound(packet(new byte[] {0, 10, 0, 99}, "192.0.2.10", 1234));
        assertThat(out).isEmpty();
        assertThat(metrics.rejectedCount()).isEqualTo(1);
        assertThat(metrics.droppedCount(AgentMetrics.Drop.REJECTED_NOT_FORWARDED)).isEqualTo(1);
        ch.finish();
    }

    @Test
    void exportersOutsideTheAllowListAreCountedAndDropped() {
        EmbeddedChannel ch = channel(List.of("10.0.0.0/8", "2001:db8::/32"), true);
        DatagramPacket denied = packet(ipfix(), "192.0.2.10", 1);
        ch.writeInbound(denied, packet(ipfix(), "10.1.2.3", 2), packet(ipfix(), "2001:db8::9", 3));
        assertThat(denied.refCnt()).isZero();
        assertThat(out).hasSize(2);
        assertThat(metrics.droppedCount(AgentMetrics.Drop.NOT_ALLOWED)).isEqualTo(1);
        ch.finish();
    }

    @Test
    void everyExporterGetsItsOwnStreamAndAReturningOneANewStream() {
        EmbeddedChannel ch = channel(List.of(), true);
        // The stamper keeps 2 streams: the third exporter makes it forget the least recent.
        String[] from = {"192.0.2.1", "192.0.2.1", "192.0.2.2", "192.0.2.1", "192.0.2.3"};
        for (String host : from) {
            ch.writeInbound(packet(ipfix(), host, 2055));
        }
        ch.writeInbound(packet(ipfix(), "192.0.2.2", 2055));
        List<DatagramStamp> stamps =
                out.stream().map(o -> RawDatagramCodec.decode(o.value()).stamp()).toList();
        assertThat(stamps)
                .containsExactly(
                        new DatagramStamp(77L, 1L, 0L),
                        new DatagramStamp(77L, 1L, 1L),
                        new DatagramStamp(77L, 2L, 0L),
                        new DatagramStamp(77L, 1L, 2L),
                        new DatagramStamp(77L, 3L, 0L),
                        // .2 was the least recent when .3 came: forgotten, and a new stream now.
                        new DatagramStamp(77L, 4L, 0L));
        assertThat(stamper.streamsStarted()).isEqualTo(4);
        assertThat(stamper.streamsEvicted()).isEqualTo(2);
        // Rejected datagrams are not stamped: they are never decoded nor counted as flows.
        byte[] garbage = "GET / HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII);
        ch.writeInbound(packet(garbage, "192.0.2.1", 2055));
        assertThat(RawDatagramCodec.decode(out.get(out.size() - 1).value()).stamp()).isNull();
        assertThat(ch.finish()).isFalse();
    }
}
