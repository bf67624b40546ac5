// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.kafka.Outbound;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskSpoolTest {

    @TempDir Path dir;

    private static Outbound record(int i) {
        byte[] value = new byte[100 + (i % 50)];
        for (int k = 0; k < value.length; k++) {
            value[k] = (byte) (i + k);
        }
        return new Outbound(
                i % 3 == 0 ? "flows.rejected" : "flows.raw",
                i % 5 == 0 ? 2 : -1,
                1_000L + i,
                i % 7 == 0 ? null : new byte[] {(byte) i, 1, 2},
                value,
                i % 3 == 0 ? "BAD_COUNT" : null);
    }

    private static List<Outbound> drainAll(DiskSpool spool, int per) throws IOException {
        List<Outbound> got = new ArrayList<>();
        while (!spool.isEmpty()) {
            List<Outbound> batch = spool.peek(per, 1 << 20);
            assertThat(batch).isNotEmpty();
            got.addAll(batch);
            spool.commit(batch.size());
        }
        return got;
    }

    @Test
    void keepsOrderAcrossSegmentsAndDeletesConsumedOnes() throws IOException {
        List<Outbound> in = new ArrayList<>();
        try (DiskSpool spool = DiskSpool.open(dir, 10 << 20, 64 * 1024)) {
            for (int i = 0; i < 3_000; i++) {
                in.add(record(i));
                assertThat(spool.append(record(i))).isTrue();
            }
            assertThat(spool.records()).isEqualTo(3_000);
            assertThat(segments()).isGreaterThan(3);
            assertThat(drainAll(spool, 97)).containsExactlyElementsOf(in);
            assertThat(spool.records()).isZero();
            assertThat(segments()).isEqualTo(1);
            assertThat(spool.bytes()).isZero();
        }
    }

    @Test
    void partialCommitRedeliversTheRest() throws IOException {
        try (DiskSpool spool = DiskSpool.open(dir, 10 << 20, 1 << 20)) {
            for (int i = 0; i < 10; i++) {
                spool.append(record(i));
            }
            List<Outbound> first = spool.peek(6, 1 << 20);
            spool.commit(2);
            List<Outbound> again = spool.peek(100, 1 << 20);
            assertThat(again).hasSize(8);
            assertThat(again.get(0)).isEqualTo(first.get(2));
        }
    }

    @Test
    void refusesAppendsBeyondTheBound() throws IOException {
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20, 256 * 1024)) {
            int accepted = 0;
            while (spool.append(record(1)) && accepted < 100_000) {
                accepted++;
            }
            assertThat(spool.bytes()).isLessThanOrEqualTo(1 << 20);
            assertThat(accepted).isBetween(6_000, 9_000);
            assertThat(spool.append(record(1))).isFalse();
            spool.commit(0);
            List<Outbound> some = spool.peek(1_000, 1 << 20);
            spool.commit(some.size());
            // Once a segment is consumed and deleted there is room again.
            assertThat(spool.records()).isEqualTo(accepted - some.size());
        }
    }

    @Test
    void survivesARestartAndCutsATornTail() throws IOException {
        List<Outbound> in = new ArrayList<>();
        try (DiskSpool spool = DiskSpool.open(dir, 10 << 20, 64 * 1024)) {
            for (int i = 0; i < 1_000; i++) {
                in.add(record(i));
                spool.append(record(i));
            }
            List<Outbound> delivered = spool.peek(300, 1 << 20);
            spool.commit(delivered.size());
        }
        // A crash in the middle of a write leaves half a frame at the end of the last segment.
        Path last;
        try (Stream<Path> files = Files.list(dir)) {
            last =
                    files.filter(p -> p.toString().endsWith(".spool"))
                            .sorted()
                            .reduce((a, b) -> b)
                            .get();
        }
        try (FileChannel ch = FileChannel.open(last, StandardOpenOption.APPEND)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {0, 0, 1, 0, 9, 9, 9}));
        }
        try (DiskSpool spool = DiskSpool.open(dir, 10 << 20, 64 * 1024)) {
            assertThat(spool.records()).isEqualTo(700);
            spool.append(record(5_000));
            List<Outbound> rest = drainAll(spool, 128);
            List<Outbound> expected = new ArrayList<>(in.subList(300, 1_000));
            expected.add(record(5_000));
            assertThat(rest).containsExactlyElementsOf(expected);
        }
    }

    private long segments() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".spool")).count();
        }
    }
}
