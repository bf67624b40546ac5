// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A small tmpfs mounted for one test: a real file system that really fills up (ENOSPC), for the
 * "full disk under the spool" cases. Needs root (or CAP_SYS_ADMIN) and mount(8); without them the
 * test is skipped, or fails when services are required ({@link ServiceRequirement}).
 */
public final class Tmpfs implements AutoCloseable {

    private final Path mountPoint;

    private Tmpfs(Path mountPoint) {
        this.mountPoint = mountPoint;
    }

    /** Mounts a tmpfs of {@code bytes} (rounded up to pages by the kernel) on a new directory. */
    public static Tmpfs mount(long bytes) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("flowhouse-tmpfs-");
        String error =
                run(
                        List.of(
                                "mount",
                                "-t",
                                "tmpfs",
                                "-o",
                                "size=" + bytes,
                                "tmpfs",
                                dir.toString()));
        if (error != null) {
            Files.deleteIfExists(dir);
        }
        ServiceRequirement.require(
                error == null,
                "a tmpfs mount for a full file system (root and mount(8)): "
                        + (error == null ? "" : error));
        return new Tmpfs(dir);
    }

    public Path path() {
        return mountPoint;
    }

    /** Bytes free on the file system now. */
    public long free() throws IOException {
        return Files.getFileStore(mountPoint).getUsableSpace();
    }

    @Override
    public void close() throws IOException {
        try {
            if (run(List.of("umount", mountPoint.toString())) != null) {
                run(List.of("umount", "-l", mountPoint.toString()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Files.deleteIfExists(mountPoint);
    }

    /** Runs a command; null when it exits 0, else its output. */
    private static String run(List<String> command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return e.getMessage();
        }
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return String.join(" ", command) + ": timed out";
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return p.exitValue() == 0 ? null : String.join(" ", command) + ": " + out;
    }
}
