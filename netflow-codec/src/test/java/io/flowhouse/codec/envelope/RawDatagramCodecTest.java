// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class RawDatagramCodecTest {

    private static final byte[] PAYLOAD = HexFormat.of().parseHex("000a0010655f0f0000000001");

    @Test
    void roundTripsIpv4AndIpv6() {
        RawDatagram v4 =
                RawDatagram.of(
                        IpAddress.parse("192.0.2.7"), 50123, 1_700_000_000_123L, "edge-1", PAYLOAD);
        RawDatagram v6 = RawDatagram.of(IpAddress.parse("2001:db8::1"), 0, 0L, "", new byte[0]);
        assertThat(RawDatagramCodec.decode(RawDatagramCodec.encode(v4))).isEqualTo(v4);
        assertThat(RawDatagramCodec.decode(RawDatagramCodec.encode(v6))).isEqualTo(v6);
    }

    @Test
    void hotPathEncodingEqualsRecordEncodingAndKeepsBufferPosition() {
        ByteBuffer buf = ByteBuffer.allocate(64);
        buf.put(new byte[] {9, 9, 9});
        buf.put(PAYLOAD);
        buf.flip();
        buf.position(3);
        byte[] fast =
                RawDatagramCodec.encode(
                        IpAddress.parse("10.1.2.3"),
                        2055,
                        42L,
                        "a".getBytes(StandardCharsets.UTF_8),
                        buf);
        assertThat(buf.position()).isEqualTo(3);
        byte[] slow =
                RawDatagramCodec.encode(
                        RawDatagram.of(IpAddress.parse("10.1.2.3"), 2055, 42L, "a", PAYLOAD));
        assertThat(fast).isEqualTo(slow);
    }

    @Test
    void writesTheDocumentedWireBytes() {
        byte[] bytes =
                RawDatagramCodec.encode(
                        RawDatagram.of(IpAddress.parse("1.2.3.4"), 300, 1L, "x", new byte[] {5}));
        String hex = HexFormat.of().formatHex(bytes);
        assertThat(hex)
                .isEqualTo(
                        "0801" // schema_version = 1
                                + "1210"
                                + "00000000000000000000ffff01020304" // address
                                + "18ac02" // port 300
                                + "2001" // received_millis 1
                                + "2a0178" // agent_id "x"
                                + "320105"); // payload
    }

    @Test
    void skipsUnknownFieldsOfEveryWireType() {
        RawDatagram d = RawDatagram.of(IpAddress.parse("::1"), 4739, 7L, "agent", PAYLOAD);
        byte[] known = RawDatagramCodec.encode(d);
        byte[] extra =
                HexFormat.of()
                        .parseHex(
                                "a00696a101" // field 100 varint
                                        + "a9060102030405060708" // field 101 fixed64
                                        + "b2060300ff00" // field 102 bytes
                                        + "bd0601020304"); // field 103 fixed32
        byte[] withUnknown = Arrays.copyOf(extra, extra.length + known.length);
        System.arraycopy(known, 0, withUnknown, extra.length, known.length);
        assertThat(RawDatagramCodec.decode(withUnknown)).isEqualTo(d);
    }

    @Test
    void rejectedRoundTripsAndReadsAsRaw() {
        RawDatagram d = RawDatagram.of(IpAddress.parse("192.0.2.1"), 1, 2L, "a", PAYLOAD);
        RejectedDatagram r = new RejectedDatagram(d, "UNSUPPORTED_VERSION", "version 7");
        byte[] bytes = RawDatagramCodec.encodeRejected(r);
        assertThat(RawDatagramCodec.decodeRejected(bytes)).isEqualTo(r);
        assertThat(RawDatagramCodec.decode(bytes)).isEqualTo(d);
        assertThat(RawDatagramCodec.decodeRejected(RawDatagramCodec.encode(d)).reason()).isEmpty();
    }

    @Test
    void malformedInputFailsWithMalformedEnvelopeException() {
        byte[] good =
                RawDatagramCodec.encode(
                        RawDatagram.of(IpAddress.parse("192.0.2.1"), 1, 2L, "a", PAYLOAD));
        for (int cut = 1; cut < good.length; cut++) {
            byte[] truncated = Arrays.copyOf(good, cut);
            try {
                RawDatagramCodec.decode(truncated);
            } catch (MalformedEnvelopeException expected) {
                // A cut at a field boundary decodes to a shorter message; inside one it fails.
            }
        }
        assertThatThrownBy(() -> RawDatagramCodec.decode(new byte[] {0x12, 0x05, 1, 2}))
                .isInstanceOf(MalformedEnvelopeException.class)
                .hasMessageContaining("declares 5 bytes");
        assertThatThrownBy(() -> RawDatagramCodec.decode(new byte[] {0x12, 0x02, 1, 2}))
                .isInstanceOf(MalformedEnvelopeException.class)
                .hasMessageContaining("expected: 4 or 16");
        assertThatThrownBy(() -> RawDatagramCodec.decode(new byte[] {0x0a, 0x00}))
                .isInstanceOf(MalformedEnvelopeException.class)
                .hasMessageContaining("wire type 2");
    }

    @Test
    void exporterKeyRoundTripsAndSeparatesPorts() {
        ExporterKey k = new ExporterKey(IpAddress.parse("198.51.100.9"), 2055);
        byte[] bytes = ExporterPartitionKey.encode(k);
        assertThat(bytes).hasSize(ExporterPartitionKey.SIZE);
        assertThat(ExporterPartitionKey.decode(bytes)).isEqualTo(k);
        assertThat(k.toString()).isEqualTo("198.51.100.9:2055");
        assertThat(new ExporterKey(IpAddress.parse("2001:db8::2"), 1).toString())
                .isEqualTo("[2001:db8::2]:1");
        assertThat(bytes)
                .isNotEqualTo(ExporterPartitionKey.encode(IpAddress.parse("198.51.100.9"), 2056));
        assertThat(ExporterPartitionKey.matches(bytes, k)).isTrue();
        assertThat(ExporterPartitionKey.matches(bytes, new ExporterKey(k.address(), 2056)))
                .isFalse();
        assertThatThrownBy(() -> ExporterPartitionKey.decode(new byte[3]))
                .isInstanceOf(MalformedEnvelopeException.class);
    }

    @Test
    void stampRoundTripsAfterThePayloadWithoutZeros() {
        DatagramStamp stamp = new DatagramStamp(1_700_000_000_000L, 3, 0);
        ExporterKey k = new ExporterKey(IpAddress.parse("192.0.2.7"), 50123);
        RawDatagram d = RawDatagram.stamped(k, 1_700_000_000_123L, "edge-1", PAYLOAD, stamp);
        byte[] bytes = RawDatagramCodec.encode(d);
        assertThat(RawDatagramCodec.decode(bytes)).isEqualTo(d);
        assertThat(RawDatagramCodec.decode(bytes).schemaVersion()).isEqualTo(2);
        String hex = HexFormat.of().formatHex(bytes);
        // Fields 7 and 8; the zero sequence is left out, as protobuf writers leave out zeros.
        assertThat(hex).endsWith("38" + "80d095ffbc31" + "4003");
        ByteBuffer buf = ByteBuffer.wrap(PAYLOAD);
        assertThat(
                        RawDatagramCodec.encode(
                                k.address(),
                                k.port(),
                                1_700_000_000_123L,
                                "edge-1".getBytes(StandardCharsets.UTF_8),
                                buf,
                                stamp))
                .isEqualTo(bytes);
        assertThat(buf.position()).isZero();
    }

    @Test
    void aVersionOneEnvelopeHasNoStampEvenWithStampFields() {
        RawDatagram d = RawDatagram.of(IpAddress.parse("::1"), 4739, 7L, "agent", PAYLOAD);
        byte[] known = RawDatagramCodec.encode(d);
        byte[] stampFields = HexFormat.of().parseHex("3801" + "4002" + "4803");
        byte[] both = Arrays.copyOf(known, known.length + stampFields.length);
        System.arraycopy(stampFields, 0, both, known.length, stampFields.length);
        assertThat(RawDatagramCodec.decode(both).stamp()).isNull();
        assertThat(RawDatagramCodec.decode(both).streamId()).isZero();
    }

    @Test
    void streamIdsSeparateAgentsEpochsAndStreams() {
        long a = DatagramStamp.streamId("edge-1", 5, 1);
        assertThat(a).isNotZero().isEqualTo(DatagramStamp.streamId("edge-1", 5, 1));
        assertThat(DatagramStamp.streamId("edge-2", 5, 1)).isNotEqualTo(a);
        assertThat(DatagramStamp.streamId("edge-1", 6, 1)).isNotEqualTo(a);
        assertThat(DatagramStamp.streamId("edge-1", 5, 2)).isNotEqualTo(a);
        assertThat(DatagramStamp.streamId("", 0, 0)).isNotZero();
        // Ids of 8 bytes and more go through the word loop.
        assertThat(DatagramStamp.streamId("collector-a", 1, 1))
                .isNotEqualTo(DatagramStamp.streamId("collector-b", 1, 1));
        RawDatagram d =
                RawDatagram.stamped(
                        new ExporterKey(IpAddress.parse("::1"), 1),
                        0L,
                        "edge-1",
                        PAYLOAD,
                        new DatagramStamp(5, 1, 99));
        assertThat(d.streamId()).isEqualTo(a);
        assertThatThrownBy(
                        () ->
                                new RawDatagram(
                                        2,
                                        new ExporterKey(IpAddress.parse("::1"), 1),
                                        0L,
                                        "a",
                                        PAYLOAD))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
