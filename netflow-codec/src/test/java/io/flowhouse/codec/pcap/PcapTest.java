// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.pcap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.flow.IpAddress;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PcapTest {

    private static final IpAddress A = IpAddress.parse("10.0.0.1");
    private static final IpAddress B = IpAddress.parse("10.0.0.2");

    @Test
    void readsTheSharedCaptures() throws Exception {
        try (PcapReader r = PcapReader.open(CaptureDatagrams.testdata("packets-synthetic.pcap"))) {
            assertThat(r.linkType()).isEqualTo(UdpDatagramExtractor.LINKTYPE_ETHERNET);
            long n = 0;
            long first = -1;
            while (r.next()) {
                if (first < 0) {
                    first = r.timestampNanos();
                }
                assertThat(r.capturedLength()).isLessThanOrEqualTo(r.originalLength());
                n++;
            }
            assertThat(n).isEqualTo(42173);
            assertThat(first / 1_000_000_000L)
                    .isBetween(1_705_320_000L, 1_705_320_060L); // 2024-01-15 12:00
        }
    }

    @Test
    void writerRoundTripsNanosecondsAndUdp(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("x.pcap");
        try (PcapWriter w = PcapWriter.create(f, true)) {
            w.writeUdp(
                    1_700_000_000_123_456_789L,
                    A,
                    1000,
                    B,
                    2055,
                    ByteBuffer.wrap(new byte[] {1, 2, 3}));
            w.writeUdp(
                    1_700_000_001_000_000_001L,
                    IpAddress.parse("2001:db8::1"),
                    5,
                    IpAddress.parse("2001:db8::2"),
                    4739,
                    ByteBuffer.wrap(new byte[] {9}));
        }
        UdpDatagramExtractor x = new UdpDatagramExtractor();
        try (PcapReader r = PcapReader.open(f)) {
            assertThat(r.isNanosecond()).isTrue();
            assertThat(r.next()).isTrue();
            UdpDatagram d = x.extract(r.packetLinkType(), r.packet(), r.timestampNanos());
            assertThat(d.timestampNanos()).isEqualTo(1_700_000_000_123_456_789L);
            assertThat(d.src()).isEqualTo(A);
            assertThat(d.dstPort()).isEqualTo(2055);
            assertThat(d.payload().remaining()).isEqualTo(3);
            assertThat(r.next()).isTrue();
            d = x.extract(r.packetLinkType(), r.packet(), r.timestampNanos());
            assertThat(d.src()).isEqualTo(IpAddress.parse("2001:db8::1"));
            assertThat(d.payload().get(0)).isEqualTo((byte) 9);
            assertThat(r.next()).isFalse();
        }
    }

    @Test
    void readsBigEndianMicrosecondPcap(@TempDir Path dir) throws Exception {
        ByteBuffer frame = PcapWriter.udpFrame(A, 1, B, 2, ByteBuffer.wrap(new byte[] {7, 7}));
        ByteBuffer f = ByteBuffer.allocate(24 + 16 + frame.remaining()).order(ByteOrder.BIG_ENDIAN);
        f.putInt(0xa1b2c3d4)
                .putShort((short) 2)
                .putShort((short) 4)
                .putInt(0)
                .putInt(0)
                .putInt(65535)
                .putInt(1);
        f.putInt(100).putInt(250).putInt(frame.remaining()).putInt(frame.remaining()).put(frame);
        Path p = dir.resolve("be.pcap");
        Files.write(p, f.array());
        try (PcapReader r = PcapReader.open(p)) {
            assertThat(r.next()).isTrue();
            assertThat(r.timestampNanos()).isEqualTo(100_000_250_000L);
            UdpDatagram d = new UdpDatagramExtractor().extract(r.packetLinkType(), r.packet(), 0);
            assertThat(d.payload().remaining()).isEqualTo(2);
        }
    }

    @Test
    void readsPcapngEnhancedPacketBlocks(@TempDir Path dir) throws Exception {
        ByteBuffer frame = PcapWriter.udpFrame(A, 1, B, 2055, ByteBuffer.wrap(new byte[] {0, 5}));
        byte[] data = new byte[frame.remaining()];
        frame.get(data);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuffer shb = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
        shb.putInt(0x0a0d0d0a)
                .putInt(28)
                .putInt(0x1a2b3c4d)
                .putShort((short) 1)
                .putShort((short) 0)
                .putLong(-1)
                .putInt(28);
        out.write(shb.array());
        ByteBuffer idb = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        idb.putInt(1).putInt(32).putShort((short) 1).putShort((short) 0).putInt(0);
        idb.putShort((short) 9)
                .putShort((short) 1)
                .put((byte) 9)
                .put(new byte[3]); // if_tsresol = 10^-9
        idb.putShort((short) 0).putShort((short) 0).putInt(32);
        out.write(idb.array());
        int padded = (data.length + 3) & ~3;
        int len = 32 + padded;
        ByteBuffer epb = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
        long ts = 1_700_000_000_000_000_123L;
        epb.putInt(6).putInt(len).putInt(0).putInt((int) (ts >>> 32)).putInt((int) ts);
        epb.putInt(data.length).putInt(data.length).put(data).position(len - 4);
        epb.putInt(len);
        out.write(epb.array());
        Path p = dir.resolve("x.pcapng");
        Files.write(p, out.toByteArray());
        try (PcapReader r = PcapReader.open(p)) {
            assertThat(r.isPcapng()).isTrue();
            assertThat(r.next()).isTrue();
            assertThat(r.timestampNanos()).isEqualTo(ts);
            UdpDatagram d = new UdpDatagramExtractor().extract(r.packetLinkType(), r.packet(), 0);
            assertThat(d.dstPort()).isEqualTo(2055);
            assertThat(r.next()).isFalse();
        }
    }

    @Test
    void rejectsNonPcap(@TempDir Path dir) throws Exception {
        Path p = dir.resolve("no.pcap");
        Files.write(p, new byte[64]);
        assertThatThrownBy(() -> PcapReader.open(p)).isInstanceOf(PcapFormatException.class);
    }

    @Test
    void extractorWalksVlanTagsAndSkipsFragments() {
        ByteBuffer plain = PcapWriter.udpFrame(A, 1, B, 2, ByteBuffer.wrap(new byte[] {1}));
        byte[] p = new byte[plain.remaining()];
        plain.get(p);
        // QinQ: insert 88a8 + 8100 tags after the MACs
        byte[] q = new byte[p.length + 8];
        System.arraycopy(p, 0, q, 0, 12);
        byte[] tags = {(byte) 0x88, (byte) 0xa8, 0, 100, (byte) 0x81, 0, 0, (byte) 200};
        System.arraycopy(tags, 0, q, 12, 8);
        System.arraycopy(p, 12, q, 20, p.length - 12);
        UdpDatagramExtractor x = new UdpDatagramExtractor();
        assertThat(x.extract(1, ByteBuffer.wrap(q), 0).srcPort()).isEqualTo(1);
        byte[] frag = p.clone();
        frag[14 + 6] = 0x20; // more fragments
        assertThat(x.extract(1, ByteBuffer.wrap(frag), 0)).isNull();
        assertThat(x.fragments()).isEqualTo(1);
        assertThat(x.extract(1, ByteBuffer.wrap(p, 0, 30), 0)).isNull();
        assertThat(x.truncated()).isEqualTo(1);
        assertThat(x.extract(147, ByteBuffer.wrap(p), 0)).isNull();
        assertThat(x.unsupportedLink()).isEqualTo(1);
    }
}
