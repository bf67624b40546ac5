// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.metrics.AgentMetrics.BatchFlush;
import io.flowhouse.agent.spool.DiskSpool;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatagramBatcherTest {

    private static final ExporterKey A = new ExporterKey(IpAddress.parse("192.0.2.1"), 2055);
    private static final ExporterKey B = new ExporterKey(IpAddress.parse("192.0.2.2"), 2055);

    private final List<Outbound> out = Collections.synchronizedList(new ArrayList<>());
    private final AgentMetrics metrics = new AgentMetrics();

    private static byte[] datagram(ExporterKey e, long seq, int size) {
        return RawDatagramCodec.encode(
                RawDatagram.stamped(
                        e, 1_000L + seq, "agent", new byte[size], new DatagramStamp(1, 2, seq)));
    }

    private static List<RawDatagram> datagrams(List<Outbound> records) {
        List<RawDatagram> all = new ArrayList<>();
        for (Outbound r : records) {
            List<RawDatagram> in = RawDatagramCodec.decodeAll(r.value());
            assertThat(r.datagrams()).isEqualTo(in.size());
            assertThat(r.timestampMillis()).isEqualTo(in.get(0).receivedMillis());
            all.addAll(in);
        }
        return all;
    }

    @Test
    void writesARecordWhenItHoldsMaxDatagramsAndKeepsKeysApart() {
        try (DatagramBatcher b =
                new DatagramBatcher(
                        out::add, "flows.raw", 4, 1 << 20, Duration.ofHours(1), metrics)) {
            for (int i = 0; i < 8; i++) {
                b.add(ExporterPartitionKey.encode(A), 1_000L + i, datagram(A, i, 10));
                b.add(ExporterPartitionKey.encode(B), 1_000L + i, datagram(B, i, 10));
            }
            assertThat(out).hasSize(4);
            for (Outbound r : out) {
                assertThat(r.datagrams()).isEqualTo(4);
                assertThat(RawDatagramCodec.isBatch(r.value())).isTrue();
                ExporterKey key = ExporterPartitionKey.decode(r.key());
                assertThat(RawDatagramCodec.decodeAll(r.value()))
                        .allSatisfy(d -> assertThat(d.exporter()).isEqualTo(key));
            }
            List<Long> seqsOfA =
                    datagrams(out).stream()
                            .filter(d -> d.exporter().equals(A))
                            .map(d -> d.stamp().sequence())
                            .toList();
            assertThat(seqsOfA).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
            assertThat(metrics.batchFlushes(BatchFlush.DATAGRAMS)).isEqualTo(4);
        }
    }

    @Test
    void aBatchWrittenInPlaceGrowsItsBufferAndMatchesTheEncodedBatch() {
        // 1,400-byte payloads: the key's buffer grows from its first 4 KiB several times.
        byte[][] encoded = new byte[40][];
        for (int i = 0; i < encoded.length; i++) {
            encoded[i] = datagram(A, i, 1_400);
        }
        try (DatagramBatcher b =
                new DatagramBatcher(
                        out::add, "flows.raw", 40, 1 << 20, Duration.ofHours(1), metrics)) {
            for (int round = 0; round < 2; round++) {
                for (byte[] d : encoded) {
                    b.add(ExporterPartitionKey.encode(A), 1_000L, d);
                }
            }
            b.add(ExporterPartitionKey.encode(A), 1_000L, encoded[7]);
        }
        // Two full batches from the same (reused) buffer, then a batch of one at close, written
        // as that datagram's own envelope.
        assertThat(out).hasSize(3);
        assertThat(out.get(0).value()).isEqualTo(RawDatagramCodec.encodeBatch(encoded, 40));
        assertThat(out.get(1).value()).isEqualTo(RawDatagramCodec.encodeBatch(encoded, 40));
        assertThat(out.get(2).value()).isEqualTo(encoded[7]);
        assertThat(out.get(2).datagrams()).isEqualTo(1);
    }

    @Test
    void writesARecordBeforeTheNextDatagramWouldPassMaxBytes() {
        int each = RawDatagramCodec.batchEntrySize(datagram(A, 1, 500).length);
        try (DatagramBatcher b =
                new DatagramBatcher(
                        out::add, "flows.raw", 100, 2 + 3 * each, Duration.ofHours(1), metrics)) {
            for (int i = 0; i < 7; i++) {
                b.add(ExporterPartitionKey.encode(A), 1_000L + i, datagram(A, i, 500));
            }
            assertThat(out).hasSize(2);
            assertThat(out)
                    .allSatisfy(
                            r -> assertThat(r.value().length).isLessThanOrEqualTo(2 + 3 * each));
            assertThat(metrics.batchFlushes(BatchFlush.BYTES)).isEqualTo(2);
        }
        // The seventh at close, alone: as its own envelope.
        assertThat(out).hasSize(3);
        assertThat(RawDatagramCodec.isBatch(out.get(2).value())).isFalse();
        assertThat(datagrams(out)).hasSize(7);
        assertThat(metrics.batchFlushes(BatchFlush.SHUTDOWN)).isEqualTo(1);
        assertThat(metrics.batchedDatagrams()).isEqualTo(7);
    }

    @Test
    void writesWhatWaitedALingerWithoutMoreDatagrams() throws Exception {
        try (DatagramBatcher b =
                new DatagramBatcher(
                        out::add, "flows.raw", 64, 1 << 20, Duration.ofMillis(5), metrics)) {
            for (int i = 0; i < 3; i++) {
                b.add(ExporterPartitionKey.encode(A), 1_000L + i, datagram(A, i, 10));
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (out.isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            assertThat(out).hasSize(1);
            assertThat(out.get(0).datagrams()).isEqualTo(3);
            assertThat(metrics.batchFlushes(BatchFlush.LINGER)).isEqualTo(1);
            // The key's empty batch is forgotten and a later datagram starts a new one.
            Thread.sleep(50);
            b.add(ExporterPartitionKey.encode(A), 1_003L, datagram(A, 3, 10));
        }
        assertThat(datagrams(out))
                .extracting(d -> d.stamp().sequence())
                .containsExactly(0L, 1L, 2L, 3L);
    }

    @Test
    void oneDatagramPerRecordPassesEachThroughAtOnce() {
        try (DatagramBatcher b =
                new DatagramBatcher(
                        out::add, "flows.raw", 1, 1 << 20, Duration.ofHours(1), metrics)) {
            byte[] d = datagram(A, 0, 10);
            b.add(ExporterPartitionKey.encode(A), 1_000L, d);
            assertThat(out)
                    .containsExactly(
                            new Outbound(
                                    "flows.raw",
                                    -1,
                                    1_000L,
                                    ExporterPartitionKey.encode(A),
                                    d,
                                    null));
            assertThat(b.batching()).isFalse();
        }
    }

    @Test
    void aBatchRecordKeepsItsDatagramCountThroughTheSpool(@TempDir Path dir) throws Exception {
        try (DatagramBatcher b =
                new DatagramBatcher(
                        out::add, "flows.raw", 5, 1 << 20, Duration.ofHours(1), metrics)) {
            for (int i = 0; i < 5; i++) {
                b.add(ExporterPartitionKey.encode(A), 1_000L + i, datagram(A, i, 10));
            }
        }
        Outbound batch = out.get(0);
        Outbound single = new Outbound("flows.raw", -1, 1L, null, datagram(B, 0, 3), null);
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20, 64 * 1024)) {
            spool.append(batch);
            spool.append(single);
        }
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20, 64 * 1024)) {
            assertThat(spool.peek(10, 1 << 20)).containsExactly(batch, single);
        }
        assertThat(batch.datagrams()).isEqualTo(5);
    }
}
