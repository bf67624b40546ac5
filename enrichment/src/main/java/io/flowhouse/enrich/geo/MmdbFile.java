// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import com.maxmind.db.CHMCache;
import com.maxmind.db.Reader;
import io.flowhouse.codec.flow.IpAddress;
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

    /** The default size of the answer cache, in entries. */
    public static final int DEFAULT_CACHE_ENTRIES = 65_536;

    /**
     * One cached answer, by the address's two longs (IPv4 mapped); immutable, so a racing reader
     * sees it whole or not at all.
     */
    private record Cached(long hi, long lo, MmdbRecord answer, Reader reader) {}

    private static final int WAYS = 4;

    private static final MmdbRecord NOT_FOUND = new MmdbRecord(null, null, null, null);

    private final WatchedFile<Reader> file;
    private final AtomicLong lookupErrors = new AtomicLong();
    private final Cached[] cache;
    private final int cacheShift;

    private MmdbFile(WatchedFile<Reader> file, int cacheEntries) {
        this.file = file;
        if (cacheEntries < 1 || Integer.bitCount(cacheEntries) != 1) {
            throw new IllegalArgumentException("cache entries: a power of two: " + cacheEntries);
        }
        this.cache = new Cached[cacheEntries];
        this.cacheShift = 32 - Integer.numberOfTrailingZeros(cacheEntries);
    }

    /** Opens {@code path} now; a missing or corrupt file is reported, not thrown. */
    public static MmdbFile open(Path path, Duration checkInterval) {
        return open(path, checkInterval, DEFAULT_CACHE_ENTRIES);
    }

    /**
     * As {@link #open(Path, Duration)}, with a cache of the last answers by address: flows repeat
     * addresses, and a database lookup (tree walk and decode) costs far more than the flow's other
     * context. Four-way set-associative, {@code cacheEntries} (a power of two) at most; a reloaded
     * file makes every entry stale at once.
     */
    public static MmdbFile open(Path path, Duration checkInterval, int cacheEntries) {
        return new MmdbFile(
                WatchedFile.open(
                        "geo database",
                        path,
                        checkInterval,
                        p -> new Reader(p.toFile(), Reader.FileMode.MEMORY, new CHMCache())),
                cacheEntries);
    }

    /** The record for {@code address}, or null when not in the file, no file, or unreadable. */
    public MmdbRecord lookup(InetAddress address) {
        return lookup(address, System.nanoTime());
    }

    /** As {@link #lookup(InetAddress)}, with the caller's clock (one read per batch of flows). */
    public MmdbRecord lookup(InetAddress address, long nowNanos) {
        return lookup(IpAddress.of(address), nowNanos);
    }

    /**
     * As {@link #lookup(InetAddress, long)} for a flow's address as it is decoded: a cached answer
     * costs no allocation; only a miss builds the {@link InetAddress} MaxMind's reader takes.
     */
    public MmdbRecord lookup(IpAddress address, long nowNanos) {
        Reader r = file.get(nowNanos);
        if (r == null) {
            return null;
        }
        long hi = address.hi();
        long lo = address.lo();
        int hash = (int) (((hi * 0x9E3779B97F4A7C15L) ^ lo) * 0x9E3779B97F4A7C15L >>> 32);
        // Four ways: an address may sit in any slot of its set of four, so a few hot addresses
        // that share a set do not evict each other on every flow (two ways still missed about
        // 3 % of 8,192 addresses in 65,536 entries, and a miss costs microseconds).
        int set = cacheShift == 32 ? 0 : (hash >>> cacheShift) & ~(WAYS - 1);
        int ways = Math.min(WAYS, cache.length);
        int free = -1;
        for (int w = 0; w < ways; w++) {
            Cached c = cache[set + w];
            if (c == null || c.reader != r) {
                free = free < 0 ? set + w : free;
            } else if (c.hi == hi && c.lo == lo) {
                return c.answer == NOT_FOUND ? null : c.answer;
            }
        }
        InetAddress inet = address.toInetAddress();
        try {
            MmdbRecord answer = r.get(inet, MmdbRecord.class);
            // A free or stale way first, else one picked by the address's low hash bits.
            cache[free >= 0 ? free : set + (hash & (ways - 1))] =
                    new Cached(hi, lo, answer == null ? NOT_FOUND : answer, r);
            return answer;
        } catch (IOException | RuntimeException e) {
            // A corrupt data section fails some lookups only; count them, keep going.
            lookupErrors.incrementAndGet();
            file.noteError(file.path() + ": lookup of " + inet.getHostAddress() + ": " + e);
            return null;
        }
    }

    /**
     * The loaded file's identity now (checking for a newer file when due), or null when none: an
     * answer kept beside the identity it came from is stale once this changes.
     */
    public Object generation(long nowNanos) {
        return file.get(nowNanos);
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
