// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The lock that makes a spool directory one agent's: an OS file lock ({@code fcntl}) on the file
 * {@code lock} in the directory, held for the agent's lifetime, with the holder's pid written into
 * it so that a second agent can say who holds it. The kernel releases the lock when the holder
 * dies, however it dies, so a stale file never blocks a restart.
 */
public final class SpoolLock implements Closeable {

    /** The lock file's name in the spool directory. */
    public static final String FILE = "lock";

    private final FileChannel channel;
    private final FileLock lock;

    private SpoolLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock of {@code dir}.
     *
     * @throws SpoolLockedException when another agent (another process, or another spool in this
     *     one) holds it
     */
    public static SpoolLock acquire(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        FileChannel ch =
                FileChannel.open(
                        file,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.READ,
                        StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            // This JVM holds it already (two agents started in one process).
            lock = null;
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        if (lock == null) {
            String holder = holder(ch);
            ch.close();
            throw new SpoolLockedException(dir, holder);
        }
        try {
            byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(pid), 0);
        } catch (IOException e) {
            // The lock holds without the pid (a full disk): the message then lacks the pid.
        }
        return new SpoolLock(ch, lock);
    }

    private static String holder(FileChannel ch) {
        try {
            ByteBuffer b = ByteBuffer.allocate(32);
            ch.read(b, 0);
            String text = new String(b.array(), 0, b.position(), StandardCharsets.US_ASCII).trim();
            return text.matches("[0-9]{1,10}") ? text : "";
        } catch (IOException e) {
            return "";
        }
    }

    /** The pid the lock file of {@code dir} names, or "" (tests, messages). */
    static String holderOf(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir.resolve(FILE), StandardOpenOption.READ)) {
            return holder(ch);
        }
    }

    @Override
    public void close() {
        try {
            lock.release();
        } catch (IOException e) {
            // Closing the channel releases it too.
        }
        try {
            channel.close();
        } catch (IOException e) {
            // Nothing left to release.
        }
    }

    /** Another agent holds the spool directory. */
    public static final class SpoolLockedException extends IOException {
        private static final long serialVersionUID = 1L;

        SpoolLockedException(Path dir, String pid) {
            super(
                    "spool directory "
                            + dir.toAbsolutePath()
                            + " is in use by another agent"
                            + (pid.isEmpty()
                                    ? ""
                                    : pid.equals(Long.toString(ProcessHandle.current().pid()))
                                            ? " in this process (pid " + pid + ")"
                                            : " (pid " + pid + ")")
                            + ": stop that agent, or give this one its own spool.directory"
                            + " (--spool-dir)");
        }
    }
}
