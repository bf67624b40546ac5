// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.flow.IpAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class RawDatagramBatchTest {

    private static final ExporterKey EXPORTER =
            new ExporterKey(IpAddress.parse("192.0.2.7"), 50123);

    private static RawDatagram datagram(long sequence, int payloadByte) {
        return RawDatagram.stamped(
                EXPORTER,
                1_700_000_000_000L + sequence,
                "edge-1",
                new byte[] {0, 10, (byte) payloadByte},
                new DatagramStamp(3, 7, sequence));
    }

    @Test
    void aBatchKeepsEveryDatagramWithItsOwnStampInOrder() {
        List<RawDatagram> in = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            in.add(datagram(i, i));
        }
        byte[] batch = RawDatagramCodec.encodeBatch(in);
        assertThat(RawDatagramCodec.isBatch(batch)).isTrue();
        assertThat(RawDatagramCodec.decodeAll(batch)).containsExactlyElementsOf(in);
    }

    @Test
    void sizesAddUpFromTheEncodedDatagrams() {
        byte[][] encoded = {
            RawDatagramCodec.encode(datagram(0, 1)), RawDatagramCodec.encode(datagram(1, 2))
        };
        byte[] batch = RawDatagramCodec.encodeBatch(encoded, 2);
        assertThat(batch.length).isEqualTo(RawDatagramCodec.batchSize(encoded, 2));
        assertThat(batch.length)
                .isEqualTo(
                        2
                                + RawDatagramCodec.batchEntrySize(encoded[0].length)
                                + RawDatagramCodec.batchEntrySize(encoded[1].length));
    }

    @Test
    void singleDatagramEnvelopesStillReadThroughDecodeAll() {
        RawDatagram v1 = RawDatagram.of(EXPORTER, 1L, "a", new byte[] {1});
        RawDatagram v2 = datagram(9, 9);
        assertThat(RawDatagramCodec.decodeAll(RawDatagramCodec.encode(v1))).containsExactly(v1);
        assertThat(RawDatagramCodec.decodeAll(RawDatagramCodec.encode(v2))).containsExactly(v2);
        assertThat(RawDatagramCodec.isBatch(RawDatagramCodec.encode(v2))).isFalse();
    }

    @Test
    void writesTheDocumentedWireBytes() {
        byte[] inner = RawDatagramCodec.encode(RawDatagram.of(EXPORTER, 1L, "x", new byte[] {5}));
        byte[] batch = RawDatagramCodec.encodeBatch(new byte[][] {inner}, 1);
        String hex = HexFormat.of().formatHex(batch);
        assertThat(hex)
                .isEqualTo(
                        "0803" // schema_version = 3
                                + "52" // field 10, length-delimited
                                + String.format("%02x", inner.length)
                                + HexFormat.of().formatHex(inner));
    }

    @Test
    void aBatchWrittenInPlaceIsTheBatchOfTheEncodedDatagrams() {
        byte[] agent = "edge-1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[][] encoded = new byte[3][];
        byte[] out = new byte[4096];
        int p = RawDatagramCodec.writeBatchHeader(out, 0);
        assertThat(p).isEqualTo(RawDatagramCodec.batchHeaderSize());
        for (int i = 0; i < 3; i++) {
            // A payload in the middle of a larger buffer, as in a receive buffer.
            java.nio.ByteBuffer payload =
                    java.nio.ByteBuffer.wrap(new byte[] {9, 0, 10, (byte) i, 9}, 1, 3);
            DatagramStamp stamp = new DatagramStamp(3, i == 0 ? 0 : 7, 300L * i);
            long millis = 1_700_000_000_000L + i;
            encoded[i] =
                    RawDatagramCodec.encode(
                            EXPORTER.address(), EXPORTER.port(), millis, agent, payload, stamp);
            int size = RawDatagramCodec.encodedSize(EXPORTER.port(), millis, agent, 3, stamp);
            assertThat(size).isEqualTo(encoded[i].length);
            p = RawDatagramCodec.writeBatchEntryHeader(out, p, size);
            int end =
                    RawDatagramCodec.encodeInto(
                            out,
                            p,
                            EXPORTER.address(),
                            EXPORTER.port(),
                            millis,
                            agent,
                            payload,
                            stamp);
            assertThat(end).isEqualTo(p + size);
            assertThat(payload.position()).isEqualTo(1);
            p = end;
        }
        assertThat(java.util.Arrays.copyOf(out, p))
                .isEqualTo(RawDatagramCodec.encodeBatch(encoded, 3));
    }

    @Test
    void theSingleDatagramReaderRefusesABatchInsteadOfGuessing() {
        byte[] batch = RawDatagramCodec.encodeBatch(List.of(datagram(0, 0), datagram(1, 1)));
        assertThatThrownBy(() -> RawDatagramCodec.decode(batch))
                .isInstanceOf(MalformedEnvelopeException.class)
                .hasMessageContaining("decodeAll");
    }

    @Test
    void emptyNestedAndTruncatedBatchesAreMalformed() {
        byte[] empty = HexFormat.of().parseHex("0803");
        assertThatThrownBy(() -> RawDatagramCodec.decodeAll(empty))
                .isInstanceOf(MalformedEnvelopeException.class)
                .hasMessageContaining("without datagrams");

        byte[] inner = RawDatagramCodec.encodeBatch(List.of(datagram(0, 0)));
        byte[] nested = RawDatagramCodec.encodeBatch(new byte[][] {inner}, 1);
        assertThatThrownBy(() -> RawDatagramCodec.decodeAll(nested))
                .isInstanceOf(MalformedEnvelopeException.class)
                .hasMessageContaining("single datagrams");

        byte[] batch = RawDatagramCodec.encodeBatch(List.of(datagram(0, 0), datagram(1, 1)));
        for (int cut = 1; cut < batch.length; cut++) {
            byte[] truncated = java.util.Arrays.copyOf(batch, cut);
            try {
                List<RawDatagram> got = RawDatagramCodec.decodeAll(truncated);
                // A cut exactly between entries leaves a shorter valid batch.
                assertThat(got).hasSizeLessThan(2);
            } catch (MalformedEnvelopeException expected) {
                // the codec's own error, never another exception
            }
        }
    }
}
