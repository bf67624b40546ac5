// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.HeaderCheck;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the encoder writes, the decoder reads back, field for field. */
class SflowEncoderTest {

    private static final ExporterKey SENDER = new ExporterKey(IpAddress.parse("127.0.0.1"), 40000);

    /** Ethernet + IPv4 + TCP (54 bytes): 10.0.0.1:40000 -> 192.0.2.80:443, SYN. */
    private static byte[] ipv4Tcp() {
        ByteBuffer b = ByteBuffer.allocate(54);
        b.put(new byte[] {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6}).putShort((short) 0x0800);
        b.put((byte) 0x45).put((byte) 0).putShort((short) 1000).putInt(0);
        b.put((byte) 64).put((byte) 6).putShort((short) 0);
        b.put(new byte[] {10, 0, 0, 1}).put(new byte[] {(byte) 192, 0, 2, 80});
        b.putShort((short) 40000).putShort((short) 443).putInt(1).putInt(0);
        b.put((byte) 0x50).put((byte) 0x02).putShort((short) 1024).putInt(0);
        return b.array();
    }

    /** Ethernet + IPv6 + UDP (62 bytes): 2001:db8::1:5353 -> 2001:db8::2:53. */
    private static byte[] ipv6Udp() {
        ByteBuffer b = ByteBuffer.allocate(62);
        b.put(new byte[] {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 6}).putShort((short) 0x86dd);
        b.putInt(0x6000_0000).putShort((short) 100).put((byte) 17).put((byte) 64);
        b.put(IpAddress.parse("2001:db8::1").toBytes16())
                .put(IpAddress.parse("2001:db8::2").toBytes16());
        b.putShort((short) 5353).putShort((short) 53).putShort((short) 100).putShort((short) 0);
        return b.array();
    }

    @Test
    void flowAndCounterSamplesRoundTrip() throws Exception {
        List<SflowEncoder.SampledPacket> flows =
                List.of(
                        new SflowEncoder.SampledPacket(
                                7, 0, 3, 100, 700, 2, 3, 5, 1_004, 4, ipv4Tcp()),
                        new SflowEncoder.SampledPacket(
                                8, 0, 3, 100, 800, 2, 3, 5, 154, 4, ipv6Udp()));
        GenericInterfaceCounters g =
                new GenericInterfaceCounters(
                        3,
                        6,
                        10_000_000_000L,
                        1,
                        3,
                        1L << 40,
                        9,
                        8,
                        7,
                        6,
                        5,
                        4,
                        123_456,
                        3,
                        2,
                        1,
                        0,
                        0xffff_ffffL,
                        0);
        List<SflowEncoder.InterfaceSample> counters =
                List.of(new SflowEncoder.InterfaceSample(11, 0, 3, g));
        SflowEncoder.Header h =
                new SflowEncoder.Header(IpAddress.parse("192.0.2.9"), 4, 77, 123_000);
        ByteBuffer out = ByteBuffer.allocate(1400);
        int n = SflowEncoder.encode(h, flows, counters, out);
        assertThat(n)
                .isEqualTo(
                        SflowEncoder.headerSize(h.agent())
                                + SflowEncoder.flowSampleSize(54)
                                + SflowEncoder.flowSampleSize(62)
                                + SflowEncoder.counterSampleSize());
        ByteBuffer d = ByteBuffer.wrap(out.array(), 0, n);
        assertThat(HeaderCheck.check(d).ok()).isTrue();

        DecodeResult r =
                new NetflowDecoder()
                        .decode(d, new DecodeContext(SENDER, 1_000L), new InMemoryTemplateCache());
        assertThat(r.problems()).isEmpty();
        assertThat(r.version()).isEqualTo(FlowRecord.VERSION_SFLOW5);
        assertThat(r.sequenceNumber()).isEqualTo(77);
        assertThat(r.sflow().agentAddress()).isEqualTo(h.agent());
        assertThat(r.sflow().subAgentId()).isEqualTo(4);
        assertThat(r.records()).hasSize(2);
        FlowRecord v4 = r.records().get(0);
        assertThat(v4.bytes()).isEqualTo(1_004);
        assertThat(v4.packets()).isEqualTo(1);
        assertThat(v4.samplingRate()).isEqualTo(100);
        assertThat(v4.srcAddr()).isEqualTo(IpAddress.parse("10.0.0.1"));
        assertThat(v4.dstAddr()).isEqualTo(IpAddress.parse("192.0.2.80"));
        assertThat(v4.srcPort()).isEqualTo(40000);
        assertThat(v4.dstPort()).isEqualTo(443);
        assertThat(v4.protocol()).isEqualTo(6);
        assertThat(v4.inputInterface()).isEqualTo(3);
        assertThat(v4.outputInterface()).isEqualTo(5);
        assertThat(v4.sflow().sampleSequence()).isEqualTo(7);
        assertThat(v4.sflow().sourceIdIndex()).isEqualTo(3);
        assertThat(v4.sflow().samplePool()).isEqualTo(700);
        assertThat(v4.sflow().drops()).isEqualTo(2);
        FlowRecord v6 = r.records().get(1);
        assertThat(v6.bytes()).isEqualTo(154);
        assertThat(v6.srcAddr()).isEqualTo(IpAddress.parse("2001:db8::1"));
        assertThat(v6.dstPort()).isEqualTo(53);
        assertThat(v6.protocol()).isEqualTo(17);
        assertThat(r.sflow().counters()).hasSize(1);
        InterfaceCounters c = r.sflow().counters().get(0);
        assertThat(c.generic()).isEqualTo(g);
        assertThat(c.sampleSequence()).isEqualTo(11);
        assertThat(c.ifIndex()).isEqualTo(3);
    }

    @Test
    void anIpv6AgentAndRefusedValues() throws Exception {
        SflowEncoder.Header h = new SflowEncoder.Header(IpAddress.parse("2001:db8::9"), 0, 1, 0);
        ByteBuffer out = ByteBuffer.allocate(100);
        assertThat(SflowEncoder.encode(h, List.of(), List.of(), out)).isEqualTo(40);
        DecodeResult r =
                new NetflowDecoder()
                        .decode(
                                out.flip(),
                                new DecodeContext(SENDER, 0L),
                                new InMemoryTemplateCache());
        assertThat(r.sflow().agentAddress()).isEqualTo(h.agent());

        assertThatThrownBy(
                        () ->
                                SflowEncoder.encode(
                                        h,
                                        List.of(
                                                new SflowEncoder.SampledPacket(
                                                        1, 0, 1L << 24, 1, 1, 0, 1, 2, 100, 4,
                                                        ipv4Tcp())),
                                        List.of(),
                                        ByteBuffer.allocate(1400)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("source id");
        assertThatThrownBy(
                        () ->
                                SflowEncoder.encode(
                                        h,
                                        List.of(
                                                new SflowEncoder.SampledPacket(
                                                        1, 0, 1, 1, 1, 0, 1, 2, 50, 4, ipv4Tcp())),
                                        List.of(),
                                        ByteBuffer.allocate(1400)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("frame length");
        ByteBuffer small = ByteBuffer.allocate(60);
        assertThatThrownBy(
                        () ->
                                SflowEncoder.encode(
                                        h,
                                        List.of(
                                                new SflowEncoder.SampledPacket(
                                                        1, 0, 1, 1, 1, 0, 1, 2, 100, 4, ipv4Tcp())),
                                        List.of(),
                                        small))
                .isInstanceOf(BufferOverflowException.class);
        assertThat(small.position()).isZero();
    }

    @Test
    void ethernetCountersBesideTheGenericOnes() throws Exception {
        GenericInterfaceCounters g =
                new GenericInterfaceCounters(
                        7,
                        6,
                        1_000_000_000L,
                        1,
                        3,
                        1L << 33,
                        10,
                        2,
                        1,
                        4,
                        5,
                        0,
                        1L << 34,
                        20,
                        3,
                        2,
                        6,
                        7,
                        0);
        EthernetInterfaceCounters e =
                new EthernetInterfaceCounters(1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0xffff_ffffL, 2);
        SflowEncoder.Header h = new SflowEncoder.Header(IpAddress.parse("192.0.2.9"), 1, 5, 1_000);
        List<SflowEncoder.InterfaceSample> counters =
                List.of(
                        new SflowEncoder.InterfaceSample(3, 0, 7, g, e),
                        new SflowEncoder.InterfaceSample(4, 0, 7, g));
        ByteBuffer out = ByteBuffer.allocate(1400);
        int n = SflowEncoder.encode(h, List.of(), counters, out);
        assertThat(n)
                .isEqualTo(
                        SflowEncoder.headerSize(h.agent())
                                + SflowEncoder.counterSampleSize(true)
                                + SflowEncoder.counterSampleSize(false));
        DecodeResult r =
                new NetflowDecoder()
                        .decode(
                                out.flip(),
                                new DecodeContext(SENDER, 0L),
                                new InMemoryTemplateCache());
        assertThat(r.problems()).isEmpty();
        assertThat(r.sflow().counters()).hasSize(2);
        assertThat(r.sflow().counters().get(0).generic()).isEqualTo(g);
        assertThat(r.sflow().counters().get(0).ethernet()).isEqualTo(e);
        assertThat(r.sflow().counters().get(1).ethernet()).isNull();
        assertThat(r.sflow().counters().get(1).sampleSequence()).isEqualTo(4);
    }
}
