// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file read into a value, and read again when it changes. The file's time and size are looked at
 * no more often than the check interval, by whichever caller finds the interval passed; the others
 * go on with the value they have, so the flow path never waits on the disk more than once an
 * interval. A file that is missing or does not load keeps the last good value (none at start), logs
 * one clear error per failed attempt and counts it.
 *
 * @param <T> what the file loads into; immutable, shared by every reader
 */
public final class WatchedFile<T> {

    /** Reads the file; any exception is a load error. */
    @FunctionalInterface
    public interface Loader<T> {
        T load(Path path) throws Exception;
    }

    private static final Logger LOG = LoggerFactory.getLogger(WatchedFile.class);

    private final String what;
    private final Path path;
    private final Loader<T> loader;
    private final long checkIntervalNanos;
    private final AtomicLong loads = new AtomicLong();
    private final AtomicLong loadErrors = new AtomicLong();
    private final Object reloadLock = new Object();

    private volatile T value;
    private volatile String lastError;
    private volatile long nextCheckNanos;
    private boolean checked;
    private long loadedModified;
    private long loadedSize = -1;

    private WatchedFile(String what, Path path, Duration checkInterval, Loader<T> loader) {
        this.what = what;
        this.path = Objects.requireNonNull(path, "path");
        this.loader = Objects.requireNonNull(loader, "loader");
        if (checkInterval.isNegative() || checkInterval.isZero()) {
            throw new IllegalArgumentException("check interval must be > 0: " + checkInterval);
        }
        this.checkIntervalNanos = checkInterval.toNanos();
    }

    /**
     * Loads {@code path} now. A missing or bad file does not throw: {@link #lastError()} says why
     * and {@link #get(long)} answers null until a good file appears.
     *
     * @param what what the file is, for messages ("geo database", "enrichment rules")
     */
    public static <T> WatchedFile<T> open(
            String what, Path path, Duration checkInterval, Loader<T> loader) {
        WatchedFile<T> f = new WatchedFile<>(what, path, checkInterval, loader);
        f.reload(System.nanoTime());
        return f;
    }

    /** The current value (null when no good file was ever loaded), reloading first when due. */
    public T get(long nowNanos) {
        if (nowNanos - nextCheckNanos >= 0) {
            reload(nowNanos);
        }
        return value;
    }

    /** The current value, without looking at the file. */
    public T current() {
        return value;
    }

    private void reload(long nowNanos) {
        synchronized (reloadLock) {
            if (checked && nowNanos - nextCheckNanos < 0) {
                return; // another thread just did it
            }
            checked = true;
            nextCheckNanos = nowNanos + checkIntervalNanos;
            try {
                BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
                long modified = a.lastModifiedTime().toMillis();
                if (loadedSize >= 0 && modified == loadedModified && a.size() == loadedSize) {
                    return;
                }
                // Remember the attempt either way: a bad file is reported once, not per check.
                loadedModified = modified;
                loadedSize = a.size();
                value = Objects.requireNonNull(loader.load(path), "loaded nothing");
                loads.incrementAndGet();
                lastError = null;
                LOG.info("{} {} loaded", what, path);
            } catch (Exception e) {
                loadErrors.incrementAndGet();
                String keeps = value == null ? "none loaded" : "keeping the last good one";
                lastError = what + " " + path + " could not be read (" + keeps + "): " + e;
                LOG.error(lastError);
            }
        }
    }

    public Path path() {
        return path;
    }

    /** Successful (re)loads. */
    public long loads() {
        return loads.get();
    }

    /** Failed (re)loads: missing, unreadable or malformed file. */
    public long loadErrors() {
        return loadErrors.get();
    }

    /** Why the last load failed, or null when the last attempt succeeded. */
    public String lastError() {
        return lastError;
    }

    /** Records an error found after loading (e.g. a corrupt record met by a lookup). */
    public void noteError(String error) {
        lastError = error;
    }
}
