// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import com.maxmind.db.CHMCache;
import com.maxmind.db.Reader;
import io.flowhouse.enrich.WatchedFile;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One MaxMind-format database file, read with MaxMind's reader and reopened when the file changes
 * ({@link WatchedFile}: checked once per interval, a missing or corrupt file is an error and a
 * counter, the last good file stays, lookups answer null while there is none).
 *
 * <p>The file is read into memory ({@link Reader.FileMode#MEMORY}), so a replaced file never pulls
 * pages from under a lookup in flight and the old reader needs no close. Decoded records are cached
 * by the reader ({@link CHMCache}, by data offset), so a lookup costs the tree walk.
 */
public final class MmdbFile {

    private final WatchedFile<Reader> file;
    private final AtomicLong lookupErrors = new AtomicLong();

    private MmdbFile(WatchedFile<Reader> file) {
        this.file = file;
    }

    /** Opens {@code path} now; a missing or corrupt file is reported, not thrown. */
    public static MmdbFile open(Path path, Duration checkInterval) {
        return new MmdbFile(
                WatchedFile.open(
                        "geo database",
                        path,
                        checkInterval,
                        p -> new Reader(p.toFile(), Reader.FileMode.MEMORY, new CHMCache())));
    }

    /** The record for {@code address}, or null when not in the file, no file, or unreadable. */
    public MmdbRecord lookup(InetAddress address) {
        return lookup(address, System.nanoTime());
    }

    /** As {@link #lookup(InetAddress)}, with the caller's clock (one read per batch of flows). */
    public MmdbRecord lookup(InetAddress address, long nowNanos) {
        Reader r = file.get(nowNanos);
        if (r == null) {
            return null;
        }
        try {
            return r.get(address, MmdbRecord.class);
        } catch (IOException | RuntimeException e) {
            // A corrupt data section fails some lookups only; count them, keep going.
            lookupErrors.incrementAndGet();
            file.noteError(file.path() + ": lookup of " + address.getHostAddress() + ": " + e);
            return null;
        }
    }

    public Path path() {
        return file.path();
    }

    /** Whether a file is loaded (lookups can answer). */
    public boolean loaded() {
        return file.current() != null;
    }

    /** The database type the file declares (e.g. GeoLite2-Country), or null when none loaded. */
    public String databaseType() {
        Reader r = file.current();
        return r == null ? null : r.getMetadata().getDatabaseType();
    }

    /** Successful (re)loads. */
    public long loads() {
        return file.loads();
    }

    /** Failed (re)loads: missing, unreadable or corrupt file. */
    public long loadErrors() {
        return file.loadErrors();
    }

    /** Lookups that failed on a corrupt record. */
    public long lookupErrors() {
        return lookupErrors.get();
    }

    /** Why the last load or lookup failed, or null when the last load succeeded. */
    public String lastError() {
        return file.lastError();
    }
}
