// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import static io.flowhouse.agent.spool.DiskSpoolFaultsTest.record;
import static io.flowhouse.agent.spool.DiskSpoolFaultsTest.segmentBytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.testkit.Tmpfs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The spool on a real file system that fills up: a 1 MiB tmpfs under a spool allowed 64 MiB. Writes
 * fail with ENOSPC, the accounting stays equal to the files, reads go on, and once the drain has
 * freed space the spool writes again by itself; closing and reopening on the full disk works and
 * loses only what it counts.
 */
class SpoolFullDiskITCase {

    private static final long DISK = 1 << 20;

    @Test
    void fillsTheDiskStaysConsistentAndRecoversOnceTheDrainFreesSpace() throws Exception {
        try (Tmpfs fs = Tmpfs.mount(DISK)) {
            Path dir = fs.path().resolve("spool");
            List<Outbound> accepted = new ArrayList<>();
            List<Outbound> delivered = new ArrayList<>();
            int noSpace = 0;
            int i = 0;
            try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 128 * 1024)) {
                for (; i < 8_000; i++) {
                    try {
                        if (spool.append(record(i))) {
                            accepted.add(record(i));
                        }
                    } catch (SpoolWriteException e) {
                        assertThat(e.noSpace()).as(e.getMessage()).isTrue();
                        noSpace++;
                    }
                    assertThat(spool.fileBytes()).isEqualTo(segmentBytes(dir));
                }
                assertThat(noSpace).isPositive();
                assertThat(spool.problems(DiskSpool.Problem.NO_SPACE)).isPositive();
                assertThat(spool.writeFailing()).isTrue();
                // Full: what is left is less than one write of the spool's 256 KiB buffer.
                assertThat(fs.free()).isLessThan(260 * 1024);
                assertThat(spool.records()).isEqualTo(accepted.size());
                System.out.printf(
                        "full tmpfs: %d records taken (%d bytes in files), %d refused for want of"
                                + " space, %d bytes free%n",
                        accepted.size(), spool.fileBytes(), noSpace, fs.free());

                // Kafka is back: the drain reads on, frees segments, and the buffer goes out.
                while (!spool.isEmpty()) {
                    List<Outbound> batch = spool.peek(200, 1 << 20);
                    if (batch.isEmpty()) {
                        Thread.sleep(DiskSpool.RETRY_NANOS / 1_000_000 + 10);
                        continue;
                    }
                    delivered.addAll(batch);
                    spool.commit(batch.size());
                    assertThat(spool.fileBytes()).isEqualTo(segmentBytes(dir));
                }
                assertThat(delivered).containsExactlyElementsOf(accepted);
                assertThat(spool.writeFailing()).isFalse();
                // And it takes records again.
                for (int k = 0; k < 300; k++, i++) {
                    assertThat(spool.append(record(i))).isTrue();
                    accepted.add(record(i));
                }
                List<Outbound> more = spool.peek(1_000, 8 << 20);
                delivered.addAll(more);
                spool.commit(more.size());
                assertThat(delivered).containsExactlyElementsOf(accepted);
            }
        }
    }

    @Test
    void closesAndReopensOnAFullDisk() throws Exception {
        try (Tmpfs fs = Tmpfs.mount(DISK)) {
            Path dir = fs.path().resolve("spool");
            List<Outbound> accepted = new ArrayList<>();
            long unwritten;
            DiskSpool full = DiskSpool.open(dir, 64 << 20, 128 * 1024);
            {
                DiskSpool spool = full;
                for (int i = 0; i < 8_000; i++) {
                    try {
                        if (spool.append(record(i))) {
                            accepted.add(record(i));
                        }
                    } catch (SpoolWriteException e) {
                        // refused: counted by the caller
                    }
                }
                spool.close();
                unwritten = spool.lost(DiskSpool.Loss.UNWRITTEN_AT_CLOSE);
                System.out.printf(
                        "closed on a full disk: %d records taken, %d unwritten at close%n",
                        accepted.size(), unwritten);
            }
            // Full: what is left is less than one write of the spool's 256 KiB buffer.
            assertThat(fs.free()).isLessThan(260 * 1024);
            try (DiskSpool spool = DiskSpool.open(dir, 64 << 20, 128 * 1024)) {
                assertThat(spool.records()).isEqualTo(accepted.size() - unwritten);
                List<Outbound> got = new ArrayList<>();
                while (!spool.isEmpty()) {
                    List<Outbound> batch = spool.peek(500, 1 << 20);
                    got.addAll(batch);
                    spool.commit(batch.size());
                }
                assertThat(got)
                        .containsExactlyElementsOf(
                                accepted.subList(0, accepted.size() - (int) unwritten));
                assertThat(spool.append(record(1))).isTrue();
            }
        }
    }
}
