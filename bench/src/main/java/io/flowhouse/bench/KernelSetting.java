// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * One numeric kernel setting under {@code /proc/sys} raised to at least a value for a peer's run
 * and put back on {@link #close()}. A peer without an option of ours (goflow2 has no receive-buffer
 * flag) gets the same through the system default while it runs. Without the right to write (not
 * root) the setting stays and {@link #note()} says so.
 */
final class KernelSetting implements AutoCloseable {
    private final Path path;
    private final long before;
    private final long during;
    private final String failure;
    private boolean closed;

    private KernelSetting(Path path, long before, long during, String failure) {
        this.path = path;
        this.before = before;
        this.during = during;
        this.failure = failure;
    }

    /** Raises {@code name} (e.g. {@code net/core/rmem_default}) to at least {@code value}. */
    static KernelSetting atLeast(String name, long value) {
        Path path = Path.of("/proc/sys", name);
        long before;
        try {
            before = read(name);
        } catch (IOException | RuntimeException e) {
            return new KernelSetting(path, -1, -1, "unreadable: " + e.getMessage());
        }
        if (before >= value) {
            return new KernelSetting(path, before, before, null);
        }
        try {
            Files.writeString(path, Long.toString(value));
            KernelSetting raised = new KernelSetting(path, before, value, null);
            // Put back even when the bench is stopped before its close().
            Runtime.getRuntime().addShutdownHook(new Thread(raised::close, "put-back-" + name));
            return raised;
        } catch (IOException e) {
            return new KernelSetting(path, before, before, "not writable: " + e.getMessage());
        }
    }

    /**
     * The value of {@code name} (e.g. {@code net/core/rmem_max}). Read by lines: {@code
     * Files.readString} returns only the first byte of a {@code /proc/sys} file on Java 17.
     */
    static long read(String name) throws IOException {
        List<String> lines = Files.readAllLines(Path.of("/proc/sys", name));
        if (lines.isEmpty()) {
            throw new IOException("/proc/sys/" + name + " is empty");
        }
        return Long.parseLong(lines.get(0).trim());
    }

    /** What the setting was during the run, and whether it was raised. */
    String note() {
        String name = path.toString().substring("/proc/sys/".length()).replace('/', '.');
        if (failure != null) {
            return name + " left at " + before + " (" + failure + ")";
        }
        return during == before
                ? name + " " + before + " (already enough)"
                : name + " " + during + " during the run (was " + before + ", put back after)";
    }

    @Override
    public synchronized void close() {
        if (failure == null && during != before && !closed) {
            closed = true;
            try {
                Files.writeString(path, Long.toString(before));
            } catch (IOException e) {
                throw new IllegalStateException("could not put " + path + " back to " + before, e);
            }
        }
    }
}
