// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.agent.kafka.Outbound;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every failure path leaves the spool consistent (its accounting equals its files) and it recovers
 * by itself: failed writes (EIO in the middle of a write, with and without a working truncate), a
 * garbage or stale head file, a corrupt frame, a vanished segment, a second opener of the
 * directory. The full file system is {@link SpoolFullDiskITCase}, on a real tmpfs.
 */
class DiskSpoolFaultsTest {

    @TempDir Path dir;

    static Outbound record(int i) {
        byte[] value = new byte[200 + (i % 70)];
        for (int k = 0; k < value.length; k++) {
            value[k] = (byte) (i * 7 + k);
        }
        return new Outbound("flows.raw", -1, 1_000L + i, new byte[] {(byte) i}, value, null);
    }

    static List<Outbound> drainAll(DiskSpool spool) throws IOException {
        List<Outbound> got = new ArrayList<>();
        while (!spool.isEmpty()) {
            List<Outbound> batch = spool.peek(97, 1 << 20);
            if (batch.isEmpty()) {
                break;
            }
            got.addAll(batch);
            spool.commit(batch.size());
        }
        return got;
    }

    /** Sum of the segment files' sizes. */
    static long segmentBytes(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".spool"))
                    .mapToLong(
                            p -> {
                                try {
                                    return Files.size(p);
                                } catch (IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            })
                    .sum();
        }
    }

    private DiskSpool faulty(FaultyChannel.Faults faults) throws IOException {
        return DiskSpool.open(
                dir,
                64 << 20,
                64 * 1024,
                (f, o) -> new FaultyChannel(FileChannel.open(f, o), faults));
    }

    @Test
    void aWriteFailingHalfWayIsCutOffAndTriedAgainLater() throws Exception {
        FaultyChannel.Faults faults = new FaultyChannel.Faults();
        List<Outbound> accepted = new ArrayList<>();
        int refused = 0;
        try (DiskSpool spool = faulty(faults)) {
            for (int i = 0; i < 6_000; i++) {
                if (i == 1_000) {
                    faults.writes = true;
                }
                if (i == 3_000) {
                    faults.writes = false;
                    Thread.sleep(DiskSpool.RETRY_NANOS / 1_000_000 + 20);
                }
                try {
                    if (spool.append(record(i))) {
                        accepted.add(record(i));
                    }
                } catch (SpoolWriteException e) {
                    assertThat(e.noSpace()).isFalse();
                    refused++;
                }
                // The accounting never runs ahead of the files.
                assertThat(spool.fileBytes()).isEqualTo(segmentBytes(dir));
                if (i == 2_000) {
                    // Reads go on from the files while writes fail: the drain is not wedged.
                    List<Outbound> some = spool.peek(10, 1 << 20);
                    assertThat(some).containsExactlyElementsOf(accepted.subList(0, 10));
                }
            }
            assertThat(faults.writeFailures).isPositive();
            assertThat(refused).isBetween(1, 2_000);
            assertThat(spool.problems(DiskSpool.Problem.IO_ERROR)).isPositive();
            assertThat(spool.writeFailing()).isFalse();
            assertThat(spool.records()).isEqualTo(accepted.size());
            assertThat(drainAll(spool)).containsExactlyElementsOf(accepted);
            assertThat(spool.records()).isZero();
        }
    }

    @Test
    void aPartialWriteThatCannotBeCutMovesTheSpoolToANewSegmentAndIsCutLater() throws Exception {
        FaultyChannel.Faults faults = new FaultyChannel.Faults();
        List<Outbound> accepted = new ArrayList<>();
        try (DiskSpool spool = faulty(faults)) {
            for (int i = 0; i < 3_000; i++) {
                if (i == 1_000) {
                    faults.writes = true;
                    faults.truncates = true;
                }
                if (i == 1_500) {
                    faults.writes = false;
                    faults.truncates = false;
                    Thread.sleep(DiskSpool.RETRY_NANOS / 1_000_000 + 20);
                }
                try {
                    if (spool.append(record(i))) {
                        accepted.add(record(i));
                    }
                } catch (SpoolWriteException e) {
                    // counted by the caller
                }
                if (i == 1_200) {
                    // Half a buffer of whole frames sits behind a segment's accounted end.
                    assertThat(spool.fileBytes()).isLessThan(segmentBytes(dir));
                }
            }
            // Cut off once writes succeed again: no record is there twice.
            assertThat(spool.fileBytes()).isEqualTo(segmentBytes(dir));
        }
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            assertThat(spool.problems(DiskSpool.Problem.TORN_TAIL)).isZero();
            assertThat(spool.fileBytes()).isEqualTo(segmentBytes(dir));
            assertThat(drainAll(spool)).containsExactlyElementsOf(accepted);
        }
    }

    @Test
    void aGarbageHeadFileIsReplacedByAScan() throws IOException {
        List<Outbound> in = new ArrayList<>();
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            for (int i = 0; i < 1_000; i++) {
                in.add(record(i));
                spool.append(record(i));
            }
            spool.commit(0);
        }
        Files.write(dir.resolve("head"), new byte[] {0x7f, 'E', 'L', 'F', 0, 0, (byte) 0xff, 12});
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            assertThat(spool.problems(DiskSpool.Problem.BAD_HEAD)).isEqualTo(1);
            assertThat(spool.records()).isEqualTo(1_000);
            assertThat(drainAll(spool)).containsExactlyElementsOf(in);
        }
        // A head that points past its segment's end, or between two records.
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            spool.append(record(1));
            spool.append(record(2));
        }
        String seg = firstSegmentNumber();
        Files.writeString(dir.resolve("head"), seg + " 999999999\n");
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            assertThat(spool.problems(DiskSpool.Problem.BAD_HEAD)).isEqualTo(1);
            assertThat(spool.records()).isEqualTo(2);
        }
        Files.writeString(dir.resolve("head"), seg + " 3\n");
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            assertThat(spool.problems(DiskSpool.Problem.BAD_HEAD)).isEqualTo(1);
            assertThat(drainAll(spool)).containsExactly(record(1), record(2));
        }
    }

    @Test
    void aCorruptFrameSkipsTheRestOfItsSegmentAndCountsTheLoss() throws IOException {
        List<Outbound> in = new ArrayList<>();
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            for (int i = 0; i < 1_000; i++) {
                in.add(record(i));
                spool.append(record(i));
            }
            spool.flush(false);
            // Bit rot in the first segment, after its 10th record.
            Path first = dir.resolve(firstSegmentNumber() + ".spool");
            long at = 0;
            try (FileChannel ch = FileChannel.open(first, StandardOpenOption.READ)) {
                ByteBuffer len = ByteBuffer.allocate(4);
                for (int k = 0; k < 10; k++) {
                    len.clear();
                    ch.read(len, at);
                    at += 8 + len.flip().getInt();
                }
            }
            long firstRecords;
            try (FileChannel ch = FileChannel.open(first, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {0x55, 0x55}), at + 20);
            }
            List<Outbound> got = drainAll(spool);
            firstRecords = in.size() - got.size() + 0;
            assertThat(spool.problems(DiskSpool.Problem.CORRUPT_FRAME)).isEqualTo(1);
            assertThat(spool.lost(DiskSpool.Loss.CORRUPT)).isEqualTo(firstRecords);
            assertThat(got.subList(0, 10)).containsExactlyElementsOf(in.subList(0, 10));
            assertThat(got.subList(10, got.size()))
                    .containsExactlyElementsOf(in.subList(10 + (int) firstRecords, in.size()));
            assertThat(spool.records()).isZero();
            // Not wedged: it takes and gives records again.
            spool.append(record(5));
            assertThat(drainAll(spool)).containsExactly(record(5));
        }
    }

    @Test
    void aVanishedSegmentIsCountedAndSkipped() throws IOException {
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            for (int i = 0; i < 1_000; i++) {
                spool.append(record(i));
            }
            spool.flush(false);
            Files.delete(dir.resolve(firstSegmentNumber() + ".spool"));
            List<Outbound> got = drainAll(spool);
            assertThat(spool.problems(DiskSpool.Problem.MISSING_SEGMENT)).isEqualTo(1);
            assertThat(spool.lost(DiskSpool.Loss.MISSING_SEGMENT) + got.size()).isEqualTo(1_000);
            assertThat(got.get(got.size() - 1)).isEqualTo(record(999));
            assertThat(spool.records()).isZero();
            assertThat(spool.fileBytes()).isEqualTo(segmentBytes(dir));
        }
    }

    @Test
    void aSecondOpenerOfTheDirectoryIsRefusedWithTheHoldersPid() throws IOException {
        String pid = Long.toString(ProcessHandle.current().pid());
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            assertThat(SpoolLock.holderOf(dir)).isEqualTo(pid);
            assertThatThrownBy(() -> DiskSpool.open(dir, 64 << 20, 64 * 1024))
                    .isInstanceOf(SpoolLock.SpoolLockedException.class)
                    .hasMessageContaining(dir.toAbsolutePath().toString())
                    .hasMessageContaining("pid " + pid)
                    .hasMessageContaining("spool.directory");
            spool.append(record(1));
        }
        // Released on close.
        try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 64 * 1024)) {
            assertThat(drainAll(spool)).containsExactly(record(1));
        }
    }

    private String firstSegmentNumber() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            String name =
                    files.map(p -> p.getFileName().toString())
                            .filter(n -> n.endsWith(".spool"))
                            .sorted()
                            .findFirst()
                            .orElseThrow();
            return name.substring(0, name.length() - ".spool".length());
        }
    }
}
