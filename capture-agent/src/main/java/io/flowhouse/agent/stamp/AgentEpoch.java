// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.stamp;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's run number, the epoch of every {@code DatagramStamp} it writes: kept in the file
 * {@code epoch} of the spool directory and advanced at every start, so that a restarted agent never
 * repeats a stamp of an earlier run, and the spool's datagrams keep the epoch they were stamped
 * with.
 *
 * <p>The next epoch is {@code max(stored + 1, now in epoch ms)}: it grows by one per start and also
 * when the spool directory was lost (a new container without its volume), as long as the clock is
 * not set back by more than the time between the two starts. It is written to a temporary file,
 * forced to disk, renamed over {@code epoch} and the directory forced too, under a lock on {@code
 * epoch.lock}, before the first datagram is stamped. Where the directory cannot be written, the
 * epoch falls back to {@code now * 1024 + 10 random bits}, far above any stored epoch (a stored
 * epoch would need about 10^15 starts to get there), and a warning says so.
 */
public final class AgentEpoch {

    private static final Logger LOG = LoggerFactory.getLogger(AgentEpoch.class);

    /** The file that holds the last epoch, in the spool directory. */
    public static final String FILE = "epoch";

    private AgentEpoch() {}

    /**
     * Reads, advances and durably stores the epoch in {@code dir}; falls back (see the class
     * comment) when that fails.
     */
    public static long next(Path dir, Clock clock) {
        try {
            return advance(dir, clock);
        } catch (IOException | RuntimeException e) {
            long epoch = fallback(clock);
            LOG.warn(
                    "cannot keep the agent epoch in {} ({}); using the unstored epoch {} for this"
                            + " run",
                    dir,
                    e.toString(),
                    epoch);
            return epoch;
        }
    }

    /** The fallback epoch of a run whose epoch cannot be stored. */
    static long fallback(Clock clock) {
        return clock.millis() * 1024 + new SecureRandom().nextInt(1024);
    }

    /**
     * Reads, advances and durably stores the epoch in {@code dir}.
     *
     * @throws IOException if the directory cannot be read or written
     */
    static long advance(Path dir, Clock clock) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE);
        try (FileChannel lockFile =
                FileChannel.open(
                        dir.resolve(FILE + ".lock"),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE)) {
            // Two agents started on one directory at once still get two epochs.
            FileLock lock = lockFile.lock();
            try {
                long stored = read(file);
                long next = Math.max(stored + 1, clock.millis());
                write(dir, file, next);
                return next;
            } finally {
                lock.release();
            }
        }
    }

    /**
     * The stored epoch, or 0 when there is none. A file that holds no epoch (torn by a crash of the
     * file system) counts as none, with a warning: the clock then gives the next one.
     */
    static long read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return 0L;
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        try {
            long v = Long.parseLong(text);
            if (v >= 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        LOG.warn("{} does not hold an epoch ({}); taking the clock's", file, text);
        return 0L;
    }

    private static void write(Path dir, Path file, long epoch) throws IOException {
        Path tmp = dir.resolve(FILE + ".tmp");
        byte[] bytes = (epoch + "\n").getBytes(StandardCharsets.US_ASCII);
        try (FileChannel ch =
                FileChannel.open(
                        tmp,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer b = ByteBuffer.wrap(bytes);
            while (b.hasRemaining()) {
                ch.write(b);
            }
            ch.force(true);
        }
        try {
            Files.move(
                    tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
        forceDirectory(dir);
    }

    /** Makes the rename durable: fsync of the directory (not possible on every platform). */
    private static void forceDirectory(Path dir) {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            LOG.debug("cannot fsync directory {}: {}", dir, e.toString());
        }
    }
}
