// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import io.flowhouse.agent.kafka.Outbound;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded, ordered, on-disk queue of {@link Outbound} records: where the agent puts datagrams
 * while Kafka is unreachable or slow, drained in order once it is back.
 *
 * <p>Layout: numbered segment files {@code 00000000000000000001.spool} in one directory, each a
 * sequence of frames {@code u32 length, u32 crc32c(body), body}; a {@code head} file holds the
 * segment and offset of the first record not yet delivered, rewritten (atomic rename) on every
 * {@link #commit}; the {@code lock} file ({@link SpoolLock}) makes the directory one agent's.
 *
 * <p>Appends go into a write buffer; the buffer is written to the current segment when it is full,
 * before a read ({@link #peek}), on {@link #flush} and {@link #syncIfDue}. The accounting always
 * equals the files: a segment's size and record count grow only once a write has fully succeeded. A
 * write that fails (disk full, EIO) is cut back off the file, the records stay in the buffer and
 * the write is tried again at most every {@link #RETRY_NANOS}; appends that do not fit in the
 * buffer meanwhile are refused with a {@link SpoolWriteException} (the caller counts the drop by
 * its kind). Reads go on from the file whatever the buffer's state, so the drain frees space while
 * the disk is full, and the spool recovers by itself once there is room again.
 *
 * <p>Durability: a segment is forced to disk when it is closed at rotation ({@code
 * spool.segment-bytes}) and the directory when a segment is created; {@link #syncIfDue} forces the
 * current segment every {@code spool.sync-interval}. A power loss loses what was appended since the
 * last of these (at most one sync interval, or with no interval the current segment) and may make
 * records delivered since the last head write be sent again (the head file is not forced).
 *
 * <p>On open, records left by an earlier run are counted and drained first; a torn frame at the end
 * of a segment (crash during a write) is cut off; a head file that does not parse or points nowhere
 * is replaced by a scan from the first segment (delivered records may be sent again). A corrupt
 * frame read later skips the rest of its segment, and a vanished segment file is dropped from the
 * accounting; both count the records lost. Every such event is logged and counted ({@link
 * Problem}). Bounded by bytes on disk: an append that would exceed the bound is refused. Consumed
 * segments are deleted as soon as the head leaves them. Thread safe.
 */
public final class DiskSpool implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(DiskSpool.class);

    private static final String SUFFIX = ".spool";
    private static final int WRITE_BUFFER = 256 * 1024;

    /** Least time between two tries of a write that failed. */
    static final long RETRY_NANOS = 100_000_000L;

    /** What went wrong with the spool's files; each is logged and counted. */
    public enum Problem {
        /** The head file did not parse or pointed past its segment: recovered by a scan. */
        BAD_HEAD,
        /** A torn frame at the end of a segment (a crash during a write), cut off at open. */
        TORN_TAIL,
        /** A frame failed its length or checksum check when read: its segment's rest skipped. */
        CORRUPT_FRAME,
        /** A segment file vanished while records in it were still waiting. */
        MISSING_SEGMENT,
        /** A write failed for want of space (ENOSPC). */
        NO_SPACE,
        /** A write, truncate, open or delete failed for another reason (EIO, ...). */
        IO_ERROR,
        /** An fsync failed: what it covered may not be on disk. */
        SYNC_ERROR,
        /** The head file could not be written (tried again at the next commit). */
        HEAD_WRITE_ERROR
    }

    /** Why records the spool had taken were lost. */
    public enum Loss {
        /** In a segment's rest after a corrupt frame. */
        CORRUPT,
        /** In a segment file that vanished. */
        MISSING_SEGMENT,
        /** Still in the write buffer when the spool closed and the write failed. */
        UNWRITTEN_AT_CLOSE
    }

    /** Opens segment files; tests put a fault injector here. */
    interface SegmentFiles {
        FileChannel open(Path file, OpenOption... options) throws IOException;
    }

    private static final class Segment {
        long bytes;
        long records;

        Segment(long bytes, long records) {
            this.bytes = bytes;
            this.records = records;
        }
    }

    private final Path dir;
    private final long maxBytes;
    private final long segmentBytes;
    private final SegmentFiles files;
    private final TreeMap<Long, Segment> segments = new TreeMap<>();
    private final ByteBuffer writeBuffer = ByteBuffer.allocate(WRITE_BUFFER);
    private final SpoolFrames frames = new SpoolFrames();
    private final SpoolIncidents incidents = new SpoolIncidents();
    private final List<long[]> peeked = new ArrayList<>();

    /** Segments with a failed write that could not be cut off yet: their accounted length. */
    private final TreeMap<Long, Long> pendingCuts = new TreeMap<>();

    private SpoolLock lock;
    private FileChannel writeChannel;
    private long writeSeq;
    private boolean rollBeforeWrite;
    private int bufferedRecords;
    private long headSeq;
    private long headOffset;
    private long headIndex;
    private long fileRecords;
    private long fileBytes;
    private boolean headDirty;
    private boolean unsynced;
    private long lastSyncNanos = System.nanoTime();
    private IOException writeFailure;
    private long retryAtNanos;
    private boolean closed;

    private DiskSpool(Path dir, long maxBytes, long segmentBytes, SegmentFiles files) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.segmentBytes = segmentBytes;
        this.files = files;
    }

    /**
     * Opens (creating if needed) the spool in {@code dir}, recovering what an earlier run left.
     *
     * @throws SpoolLock.SpoolLockedException when another agent holds the directory
     */
    public static DiskSpool open(Path dir, long maxBytes, long segmentBytes) throws IOException {
        return open(dir, maxBytes, segmentBytes, FileChannel::open);
    }

    static DiskSpool open(Path dir, long maxBytes, long segmentBytes, SegmentFiles files)
            throws IOException {
        Files.createDirectories(dir);
        DiskSpool s = new DiskSpool(dir, maxBytes, segmentBytes, files);
        s.lock = SpoolLock.acquire(dir);
        try {
            s.recover();
        } catch (IOException | RuntimeException e) {
            s.lock.close();
            throw e;
        }
        return s;
    }

    // ---- recovery

    private void recover() throws IOException {
        TreeMap<Long, Long> sizes = new TreeMap<>();
        try (DirectoryStream<Path> list = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : list) {
                String name = f.getFileName().toString();
                try {
                    long seq = Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
                    if (seq < 1) {
                        throw new NumberFormatException();
                    }
                    sizes.put(seq, Files.size(f));
                } catch (NumberFormatException e) {
                    LOG.warn("ignoring unexpected file {} in the spool directory", f);
                }
            }
        }
        headSeq = sizes.isEmpty() ? 1 : sizes.firstKey();
        headOffset = 0;
        SpoolHeadFile.Position head = SpoolHeadFile.read(dir, this::badHead);
        if (head != null) {
            long seq = head.segment();
            Long size = sizes.get(seq);
            if (size != null) {
                if (head.offset() <= size) {
                    headSeq = seq;
                    headOffset = head.offset();
                } else {
                    badHead(
                            "points to offset "
                                    + head.offset()
                                    + " of a "
                                    + size
                                    + "-byte segment");
                }
            } else if (sizes.isEmpty() || seq > sizes.lastKey()) {
                // Everything up to that segment was delivered.
                headSeq = seq;
            }
            // Else the head names a segment before the first: deleted after delivery, while
            // the head write that followed failed. The first segment is the head.
        }
        for (Long seq : new ArrayList<>(sizes.headMap(headSeq).keySet())) {
            deleteQuietly(segment(seq));
            sizes.remove(seq);
        }
        for (Map.Entry<Long, Long> e : sizes.entrySet()) {
            long seq = e.getKey();
            long[] scan;
            try (FileChannel ch = files.open(segment(seq), StandardOpenOption.READ)) {
                scan = frames.scan(ch, seq == headSeq ? headOffset : -1);
            }
            if (scan[1] < e.getValue()) {
                incidents.problem(
                        Problem.TORN_TAIL,
                        String.format(
                                Locale.ROOT,
                                "spool segment %d has a torn or corrupt frame at offset %d; cutting"
                                        + " %d bytes",
                                seq,
                                scan[1],
                                e.getValue() - scan[1]));
                try (FileChannel ch = files.open(segment(seq), StandardOpenOption.WRITE)) {
                    ch.truncate(scan[1]);
                }
            }
            segments.put(seq, new Segment(scan[1], scan[0]));
            if (seq == headSeq) {
                if (scan[2] < 0) {
                    badHead("offset " + headOffset + " of segment " + seq + " is not a record");
                    headOffset = 0;
                    headIndex = 0;
                } else {
                    headIndex = scan[2];
                }
            }
        }
        for (Segment s : segments.values()) {
            fileRecords += s.records;
            fileBytes += s.bytes;
        }
        fileRecords -= headIndex;
        writeSeq = segments.isEmpty() ? headSeq : segments.lastKey();
        if (fileRecords > 0) {
            LOG.info("spool {} holds {} records from an earlier run", dir, fileRecords);
        }
        if (headDirty) {
            writeHeadQuietly();
        }
    }

    private void badHead(String why) {
        headDirty = true;
        incidents.problem(
                Problem.BAD_HEAD,
                "spool head file "
                        + dir.resolve(SpoolHeadFile.NAME)
                        + " "
                        + why
                        + "; starting from the first record of the first segment (records"
                        + " delivered before may be sent again)");
    }

    // ---- writing

    private Path segment(long seq) {
        return dir.resolve(String.format(Locale.ROOT, "%020d%s", seq, SUFFIX));
    }

    /**
     * Appends a record.
     *
     * @return false if the spool is full (nothing was written)
     * @throws SpoolWriteException when the record cannot be kept because writing failed (the spool
     *     stays consistent and tries again later)
     */
    public synchronized boolean append(Outbound r) throws IOException {
        ensureOpen();
        byte[] body = SpoolRecordCodec.encode(r);
        int frame = SpoolFrames.HEADER + body.length;
        if (bytes() + frame > maxBytes) {
            return false;
        }
        Segment w = segments.get(writeSeq);
        long pending = (w == null ? 0 : w.bytes) + writeBuffer.position();
        if (pending > 0 && pending + frame > segmentBytes) {
            rotate();
        }
        if (writeBuffer.remaining() < frame) {
            flushBuffer();
        }
        int sum = frames.crc(body, 0, body.length);
        if (frame > writeBuffer.capacity()) {
            ByteBuffer big = ByteBuffer.allocate(frame);
            big.putInt(body.length).putInt(sum).put(body).flip();
            write(big, 1);
        } else {
            writeBuffer.putInt(body.length).putInt(sum).put(body);
            bufferedRecords++;
        }
        return true;
    }

    /** Closes the current segment (buffer written, forced to disk); the next write begins one. */
    private void rotate() throws IOException {
        flushBuffer();
        if (writeChannel != null) {
            force(writeChannel);
            closeWriteChannel();
        }
        if (segments.containsKey(writeSeq)) {
            writeSeq++;
        }
    }

    private void flushBuffer() throws IOException {
        if (writeBuffer.position() == 0) {
            return;
        }
        ByteBuffer data = writeBuffer.duplicate();
        data.flip();
        write(data, bufferedRecords);
        writeBuffer.clear();
        bufferedRecords = 0;
    }

    /**
     * Writes whole frames at the end of the current segment. On failure the file is cut back to
     * where it was (or, if that fails too, the segment is closed and the next write begins a new
     * one), so the accounting still equals the file; the failure is thrown.
     */
    private void write(ByteBuffer data, int records) throws IOException {
        if (writeFailure != null && System.nanoTime() < retryAtNanos) {
            throw new SpoolWriteException(writeFailure);
        }
        FileChannel ch = writeChannel();
        Segment w = segments.get(writeSeq);
        long start = w.bytes;
        int len = data.remaining();
        try {
            long pos = start;
            while (data.hasRemaining()) {
                pos += ch.write(data, pos);
            }
        } catch (IOException e) {
            try {
                ch.truncate(start);
            } catch (IOException t) {
                // Cannot cut the partial write off: it stays behind the accounted end (never
                // read), the cut is tried again once writes succeed, and writes go on in a new
                // segment. Should the agent die first, the next open finds whole frames there and
                // sends them again (at least once).
                LOG.warn(
                        "cannot cut a failed write off spool segment {}: {}",
                        writeSeq,
                        t.toString());
                pendingCuts.put(writeSeq, start);
                rollBeforeWrite = true;
            }
            throw writeFailed(e, "writing spool segment " + writeSeq);
        }
        w.bytes += len;
        w.records += records;
        fileBytes += len;
        fileRecords += records;
        unsynced = true;
        if (writeFailure != null) {
            LOG.info("spool writes succeed again ({})", dir);
            writeFailure = null;
        }
        if (!pendingCuts.isEmpty()) {
            applyPendingCuts();
        }
    }

    private void applyPendingCuts() {
        for (Map.Entry<Long, Long> cut : new ArrayList<>(pendingCuts.entrySet())) {
            long seq = cut.getKey();
            if (segments.containsKey(seq)) {
                try (FileChannel ch = files.open(segment(seq), StandardOpenOption.WRITE)) {
                    ch.truncate(cut.getValue());
                } catch (IOException e) {
                    continue;
                }
            }
            pendingCuts.remove(seq);
        }
    }

    /** The channel of the current segment, created (and the directory forced) if new. */
    private FileChannel writeChannel() throws IOException {
        if (rollBeforeWrite) {
            rollBeforeWrite = false;
            closeWriteChannel();
            if (segments.containsKey(writeSeq)) {
                writeSeq++;
            }
        }
        if (writeChannel == null) {
            Segment existing = segments.get(writeSeq);
            try {
                writeChannel =
                        files.open(
                                segment(writeSeq),
                                StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE);
                if (existing != null && writeChannel.size() > existing.bytes) {
                    writeChannel.truncate(existing.bytes);
                }
            } catch (IOException e) {
                closeWriteChannel();
                throw writeFailed(e, "opening spool segment " + writeSeq);
            }
            if (existing == null) {
                segments.put(writeSeq, new Segment(0, 0));
                forceDirectory();
            }
        }
        return writeChannel;
    }

    private SpoolWriteException writeFailed(IOException e, String what) {
        SpoolWriteException failure =
                e instanceof SpoolWriteException w ? w : new SpoolWriteException(e);
        writeFailure = failure;
        retryAtNanos = System.nanoTime() + RETRY_NANOS;
        incidents.problem(
                failure.noSpace() ? Problem.NO_SPACE : Problem.IO_ERROR,
                what + " failed: " + e.getMessage());
        return failure;
    }

    private void closeWriteChannel() {
        if (writeChannel != null) {
            try {
                writeChannel.close();
            } catch (IOException e) {
                // Closing does not lose written data; nothing to do.
            }
            writeChannel = null;
        }
    }

    private void force(FileChannel ch) {
        try {
            ch.force(false);
            unsynced = false;
            lastSyncNanos = System.nanoTime();
        } catch (IOException e) {
            incidents.problem(
                    Problem.SYNC_ERROR, "fsync of spool segment " + writeSeq + " failed: " + e);
        }
    }

    private void forceDirectory() {
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // Some file systems cannot force a directory; the segment's data is still forced.
        }
    }

    // ---- reading and committing

    /**
     * Returns records from the head, oldest first, without removing them: at most {@code
     * maxRecords}, and stopping once {@code maxBytes} are read (at least one record if any). {@link
     * #commit(int)} removes a prefix of what the last peek returned. Returns what the files hold
     * even when the write buffer cannot be written out.
     */
    public synchronized List<Outbound> peek(int maxRecords, int maxBytes) throws IOException {
        ensureOpen();
        try {
            flushBuffer();
        } catch (IOException e) {
            // Counted where it failed; the drain goes on with what the files hold.
        }
        peeked.clear();
        List<Outbound> out = new ArrayList<>();
        long seq = headSeq;
        long pos = headOffset;
        long index = headIndex;
        int bytes = 0;
        while (out.size() < maxRecords && (out.isEmpty() || bytes < maxBytes)) {
            Segment seg = segments.get(seq);
            if (seg == null || pos >= seg.bytes) {
                Long next = segments.higherKey(seq);
                if (next == null) {
                    break;
                }
                seq = next;
                pos = 0;
                index = 0;
                continue;
            }
            int chunk = (int) Math.min(seg.bytes - pos, Math.max(64 * 1024, maxBytes - bytes));
            ByteBuffer buf = ByteBuffer.allocate(chunk);
            try (FileChannel ch = files.open(segment(seq), StandardOpenOption.READ)) {
                SpoolFrames.readFully(ch, buf, pos);
                buf.flip();
                boolean progressed = false;
                while (buf.remaining() >= SpoolFrames.HEADER
                        && out.size() < maxRecords
                        && (out.isEmpty() || bytes < maxBytes)) {
                    int len = buf.getInt(buf.position());
                    if (len < 0
                            || len > SpoolFrames.MAX_BODY
                            || pos + SpoolFrames.HEADER + len > seg.bytes) {
                        corrupt(seq, seg, pos, index, "length " + len);
                        break;
                    }
                    if (buf.remaining() < SpoolFrames.HEADER + len) {
                        if (!progressed) {
                            ByteBuffer frame = ByteBuffer.allocate(SpoolFrames.HEADER + len);
                            SpoolFrames.readFully(ch, frame, pos);
                            frame.flip();
                            buf = frame;
                            continue;
                        }
                        break;
                    }
                    int sum = buf.getInt(buf.position() + 4);
                    byte[] body = new byte[len];
                    buf.position(buf.position() + SpoolFrames.HEADER);
                    buf.get(body);
                    Outbound r =
                            frames.crc(body, 0, len) == sum
                                    ? SpoolRecordCodec.decodeOrNull(body)
                                    : null;
                    if (r == null) {
                        corrupt(seq, seg, pos, index, "checksum or body");
                        break;
                    }
                    out.add(r);
                    pos += SpoolFrames.HEADER + len;
                    index++;
                    bytes += SpoolFrames.HEADER + len;
                    peeked.add(new long[] {seq, pos, index});
                    progressed = true;
                }
            } catch (NoSuchFileException e) {
                missing(seq, seg, index);
            }
        }
        return out;
    }

    /**
     * Drops the rest of a segment after a corrupt frame: accounting and file cut at {@code pos}.
     */
    private void corrupt(long seq, Segment seg, long pos, long index, String what) {
        long lost = Math.max(0, seg.records - index);
        incidents.problem(
                Problem.CORRUPT_FRAME,
                String.format(
                        Locale.ROOT,
                        "spool segment %d: corrupt frame (%s) at offset %d; skipping the rest of the"
                                + " segment (%d records, %d bytes)",
                        seq,
                        what,
                        pos,
                        lost,
                        seg.bytes - pos));
        incidents.lose(Loss.CORRUPT, lost);
        fileRecords -= lost;
        fileBytes -= seg.bytes - pos;
        seg.records -= lost;
        seg.bytes = pos;
        try (FileChannel ch = files.open(segment(seq), StandardOpenOption.WRITE)) {
            ch.truncate(pos);
        } catch (IOException e) {
            if (seq == writeSeq) {
                rollBeforeWrite = true;
            }
        }
    }

    private void missing(long seq, Segment seg, long index) {
        long lost = Math.max(0, seg.records - index);
        incidents.problem(
                Problem.MISSING_SEGMENT,
                "spool segment " + seq + " vanished with " + lost + " records waiting");
        incidents.lose(Loss.MISSING_SEGMENT, lost);
        fileRecords -= lost;
        fileBytes -= seg.bytes;
        segments.remove(seq);
        if (seq == writeSeq) {
            closeWriteChannel();
            writeSeq++;
        }
    }

    /** Removes the first {@code n} records of the last {@link #peek}: they reached Kafka. */
    public synchronized void commit(int n) throws IOException {
        ensureOpen();
        if (n <= 0) {
            return;
        }
        if (n > peeked.size()) {
            throw new IllegalArgumentException(
                    "commit of " + n + " records, " + peeked.size() + " were peeked");
        }
        long[] at = peeked.get(n - 1);
        headSeq = at[0];
        headOffset = at[1];
        headIndex = at[2];
        fileRecords -= n;
        peeked.clear();
        // A fully read segment with later ones: the head moves on to the next.
        for (Segment s = segments.get(headSeq); s != null && headOffset >= s.bytes; ) {
            Long next = segments.higherKey(headSeq);
            if (next == null) {
                break;
            }
            headSeq = next;
            headOffset = 0;
            headIndex = 0;
            s = segments.get(headSeq);
        }
        for (Long seq : new ArrayList<>(segments.headMap(headSeq).keySet())) {
            fileBytes -= segments.remove(seq).bytes;
            deleteQuietly(segment(seq));
        }
        if (fileRecords == 0 && !segments.isEmpty()) {
            // All written is delivered: the segments go, the next write begins a new one (records
            // still in the buffer go there).
            closeWriteChannel();
            for (Map.Entry<Long, Segment> e : segments.entrySet()) {
                fileBytes -= e.getValue().bytes;
                deleteQuietly(segment(e.getKey()));
            }
            writeSeq = Math.max(writeSeq, segments.lastKey()) + 1;
            segments.clear();
            pendingCuts.clear();
            headSeq = writeSeq;
            headOffset = 0;
            headIndex = 0;
            try {
                writeChannel();
            } catch (IOException e) {
                // Counted; the next write creates it.
            }
        }
        writeHeadQuietly();
    }

    private void deleteQuietly(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            incidents.problem(Problem.IO_ERROR, "cannot delete " + f + ": " + e);
        }
    }

    private void writeHeadQuietly() {
        try {
            SpoolHeadFile.write(dir, headSeq, headOffset);
            if (headDirty) {
                headDirty = false;
            }
        } catch (IOException e) {
            // The head lags: after a restart some delivered records are sent again.
            headDirty = true;
            incidents.problem(Problem.HEAD_WRITE_ERROR, "cannot write the spool head: " + e);
        }
    }

    // ---- state

    /** Records waiting (in the files and the write buffer). */
    public synchronized long records() {
        return fileRecords + bufferedRecords;
    }

    /** Bytes on disk and in the write buffer. */
    public synchronized long bytes() {
        return fileBytes + writeBuffer.position();
    }

    /** Records in the segment files (the accounting of what the files hold). */
    public synchronized long fileRecords() {
        return fileRecords;
    }

    /** Bytes of the segment files as accounted (equal to their sizes on disk). */
    public synchronized long fileBytes() {
        return fileBytes;
    }

    public long maxBytes() {
        return maxBytes;
    }

    public Path directory() {
        return dir;
    }

    public synchronized boolean isEmpty() {
        return records() == 0;
    }

    /** How often each problem happened since open. */
    public long problems(Problem p) {
        return incidents.problems(p);
    }

    /** Records lost for this reason since open. */
    public long lost(Loss l) {
        return incidents.lost(l);
    }

    /** Whether the last write failed and has not succeeded since. */
    public synchronized boolean writeFailing() {
        return writeFailure != null;
    }

    /** Writes buffered records to the file; with {@code fsync}, to the disk. */
    public synchronized void flush(boolean fsync) throws IOException {
        if (closed) {
            return;
        }
        flushBuffer();
        if (fsync && writeChannel != null) {
            force(writeChannel);
        }
    }

    /**
     * Writes the buffer out and forces the current segment when {@code interval} has passed since
     * the last force and something was written; failures are counted, not thrown.
     */
    public synchronized void syncIfDue(Duration interval) {
        if (closed || interval.isZero()) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastSyncNanos < interval.toNanos()) {
            return;
        }
        try {
            flushBuffer();
        } catch (IOException e) {
            // Counted where it failed.
        }
        if (unsynced && writeChannel != null) {
            force(writeChannel);
        }
        lastSyncNanos = now;
    }

    /**
     * Writes out and forces what is buffered, writes the head and releases the directory. Records
     * that cannot be written are counted lost ({@link Loss#UNWRITTEN_AT_CLOSE}); never throws.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        try {
            writeFailure = null;
            flushBuffer();
        } catch (IOException e) {
            incidents.lose(Loss.UNWRITTEN_AT_CLOSE, bufferedRecords);
            LOG.error(
                    "spool closed with {} records it could not write: {}",
                    bufferedRecords,
                    e.toString());
            bufferedRecords = 0;
            writeBuffer.clear();
        }
        if (writeChannel != null) {
            force(writeChannel);
            closeWriteChannel();
        }
        applyPendingCuts();
        writeHeadQuietly();
        closed = true;
        lock.close();
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("spool " + dir + " is closed");
        }
    }
}
