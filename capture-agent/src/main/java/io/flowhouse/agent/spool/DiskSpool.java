// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import io.flowhouse.agent.kafka.Outbound;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
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
    private static final String HEAD = "head";
    private static final int FRAME_HEADER = 8;
    private static final int WRITE_BUFFER = 256 * 1024;

    /** Least time between two log lines of one kind of problem (all are counted). */
    private static final long PROBLEM_LOG_NANOS = 10_000_000_000L;

    private final long[] nextLogNanos = new long[Problem.values().length];

    /** Least time between two tries of a write that failed. */
    static final long RETRY_NANOS = 100_000_000L;

    /** Largest frame body accepted on read; larger lengths mean corruption. */
    static final int MAX_FRAME = 16 * 1024 * 1024;

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
    private final CRC32C crc = new CRC32C();
    private final Map<Problem, AtomicLong> problems = new EnumMap<>(Problem.class);
    private final Map<Loss, AtomicLong> losses = new EnumMap<>(Loss.class);
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
        for (Problem p : Problem.values()) {
            problems.put(p, new AtomicLong());
        }
        for (Loss l : Loss.values()) {
            losses.put(l, new AtomicLong());
        }
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
        long[] head = readHead();
        if (head != null) {
            long seq = head[0];
            Long size = sizes.get(seq);
            if (size != null) {
                if (head[1] <= size) {
                    headSeq = seq;
                    headOffset = head[1];
                } else {
                    badHead("points to offset " + head[1] + " of a " + size + "-byte segment");
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
            long[] scan = scan(seq, seq == headSeq ? headOffset : -1);
            if (scan[1] < e.getValue()) {
                problem(
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

    /** The head file's segment and offset; null when missing or not parsable (counted). */
    private long[] readHead() {
        Path head = dir.resolve(HEAD);
        if (!Files.exists(head)) {
            return null;
        }
        String text;
        try {
            text = Files.readString(head, StandardCharsets.ISO_8859_1).trim();
        } catch (IOException e) {
            badHead("cannot be read (" + e + ")");
            return null;
        }
        String[] parts = text.split(" ");
        if (parts.length == 2
                && parts[0].matches("[0-9]{1,18}")
                && parts[1].matches("[0-9]{1,18}")
                && Long.parseLong(parts[0]) > 0) {
            return new long[] {Long.parseLong(parts[0]), Long.parseLong(parts[1])};
        }
        String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        badHead("holds \"" + shown.replaceAll("[^\\x20-\\x7e]", "?") + "\"");
        return null;
    }

    private void badHead(String why) {
        headDirty = true;
        problem(
                Problem.BAD_HEAD,
                "spool head file "
                        + dir.resolve(HEAD)
                        + " "
                        + why
                        + "; starting from the first record of the first segment (records"
                        + " delivered before may be sent again)");
    }

    /**
     * Counts valid frames of a segment from its start; returns {records, end offset of the last
     * valid frame, records before {@code mark} or -1 if {@code mark} is not a frame boundary}.
     */
    private long[] scan(long seq, long mark) throws IOException {
        long n = 0;
        long pos = 0;
        long before = mark == 0 ? 0 : -1;
        try (FileChannel ch = files.open(segment(seq), StandardOpenOption.READ)) {
            long size = ch.size();
            ByteBuffer header = ByteBuffer.allocate(FRAME_HEADER);
            while (pos + FRAME_HEADER <= size) {
                header.clear();
                readFully(ch, header, pos);
                header.flip();
                int len = header.getInt();
                int sum = header.getInt();
                if (len < 0 || len > MAX_FRAME || pos + FRAME_HEADER + len > size) {
                    break;
                }
                ByteBuffer body = ByteBuffer.allocate(len);
                readFully(ch, body, pos + FRAME_HEADER);
                if (crc(body.array(), 0, len) != sum) {
                    break;
                }
                n++;
                pos += FRAME_HEADER + len;
                if (pos == mark) {
                    before = n;
                }
            }
        }
        return new long[] {n, pos, before};
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
        byte[] body = encode(r);
        int frame = FRAME_HEADER + body.length;
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
        int sum = crc(body, 0, body.length);
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
                e instanceof SpoolWriteException s ? s : new SpoolWriteException(e);
        writeFailure = failure;
        retryAtNanos = System.nanoTime() + RETRY_NANOS;
        problem(
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
            problem(Problem.SYNC_ERROR, "fsync of spool segment " + writeSeq + " failed: " + e);
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
                readFully(ch, buf, pos);
                buf.flip();
                boolean progressed = false;
                while (buf.remaining() >= FRAME_HEADER
                        && out.size() < maxRecords
                        && (out.isEmpty() || bytes < maxBytes)) {
                    int len = buf.getInt(buf.position());
                    if (len < 0 || len > MAX_FRAME || pos + FRAME_HEADER + len > seg.bytes) {
                        corrupt(seq, seg, pos, index, "length " + len);
                        break;
                    }
                    if (buf.remaining() < FRAME_HEADER + len) {
                        if (!progressed) {
                            ByteBuffer frame = ByteBuffer.allocate(FRAME_HEADER + len);
                            readFully(ch, frame, pos);
                            frame.flip();
                            buf = frame;
                            continue;
                        }
                        break;
                    }
                    int sum = buf.getInt(buf.position() + 4);
                    byte[] body = new byte[len];
                    buf.position(buf.position() + FRAME_HEADER);
                    buf.get(body);
                    Outbound r = crc(body, 0, len) == sum ? decodeOrNull(body) : null;
                    if (r == null) {
                        corrupt(seq, seg, pos, index, "checksum or body");
                        break;
                    }
                    out.add(r);
                    pos += FRAME_HEADER + len;
                    index++;
                    bytes += FRAME_HEADER + len;
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
        problem(
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
        losses.get(Loss.CORRUPT).addAndGet(lost);
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
        problem(
                Problem.MISSING_SEGMENT,
                "spool segment " + seq + " vanished with " + lost + " records waiting");
        losses.get(Loss.MISSING_SEGMENT).addAndGet(lost);
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
            problem(Problem.IO_ERROR, "cannot delete " + f + ": " + e);
        }
    }

    private void writeHeadQuietly() {
        Path tmp = dir.resolve(HEAD + ".tmp");
        try {
            Files.writeString(tmp, headSeq + " " + headOffset + "\n", StandardCharsets.US_ASCII);
            try {
                Files.move(
                        tmp,
                        dir.resolve(HEAD),
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, dir.resolve(HEAD), StandardCopyOption.REPLACE_EXISTING);
            }
            if (headDirty) {
                headDirty = false;
            }
        } catch (IOException e) {
            // The head lags: after a restart some delivered records are sent again.
            headDirty = true;
            problem(Problem.HEAD_WRITE_ERROR, "cannot write the spool head: " + e);
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
        return problems.get(p).get();
    }

    /** Records lost for this reason since open. */
    public long lost(Loss l) {
        return losses.get(l).get();
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

    private void problem(Problem p, String message) {
        long n = problems.get(p).incrementAndGet();
        // A full disk retries every 100 ms: one line per kind every 10 s at most.
        long now = System.nanoTime();
        long next = nextLogNanos[p.ordinal()];
        if (n == 1 || now - next >= 0) {
            nextLogNanos[p.ordinal()] = now + PROBLEM_LOG_NANOS;
            LOG.warn("{} ({}, {} so far)", message, p, n);
        }
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
            losses.get(Loss.UNWRITTEN_AT_CLOSE).addAndGet(bufferedRecords);
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

    private int crc(byte[] b, int off, int len) {
        crc.reset();
        crc.update(b, off, len);
        return (int) crc.getValue();
    }

    private static void readFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
        while (buf.hasRemaining()) {
            int n = ch.read(buf, pos);
            if (n < 0) {
                throw new IOException("unexpected end of spool segment at " + pos);
            }
            pos += n;
        }
    }

    /** A write the spool could not make; the spool stays consistent and tries again later. */
    public static final class SpoolWriteException extends IOException {
        private static final long serialVersionUID = 1L;

        private final boolean noSpace;

        SpoolWriteException(IOException cause) {
            super(cause.getMessage(), cause);
            this.noSpace = isNoSpace(cause);
        }

        /** Whether the file system was full (ENOSPC), rather than another I/O error. */
        public boolean noSpace() {
            return noSpace;
        }

        /** Whether {@code e} (or a cause) says the file system is full. */
        public static boolean isNoSpace(IOException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                String m =
                        t instanceof FileSystemException f && f.getReason() != null
                                ? f.getReason()
                                : t.getMessage();
                if (m != null && m.contains("No space left on device")) {
                    return true;
                }
                if (t instanceof SpoolWriteException s) {
                    return s.noSpace;
                }
            }
            return false;
        }
    }

    // Body: u8 topic length, topic, i32 partition, i64 timestamp, i32 key length (-1 null), key,
    // i32 value length, value, u16 reason length (0xffff null), reason.
    static byte[] encode(Outbound r) {
        byte[] topic = r.topic().getBytes(StandardCharsets.UTF_8);
        byte[] reason = r.reason() == null ? null : r.reason().getBytes(StandardCharsets.UTF_8);
        int keyLen = r.key() == null ? 0 : r.key().length;
        ByteBuffer b =
                ByteBuffer.allocate(
                        1
                                + topic.length
                                + 4
                                + 8
                                + 4
                                + keyLen
                                + 4
                                + r.value().length
                                + 2
                                + (reason == null ? 0 : reason.length));
        b.put((byte) topic.length).put(topic).putInt(r.partition()).putLong(r.timestampMillis());
        if (r.key() == null) {
            b.putInt(-1);
        } else {
            b.putInt(keyLen).put(r.key());
        }
        b.putInt(r.value().length).put(r.value());
        if (reason == null) {
            b.putShort((short) 0xffff);
        } else {
            b.putShort((short) reason.length).put(reason);
        }
        return b.array();
    }

    /** The record of a frame body, or null when the body does not parse (a corrupt frame). */
    private static Outbound decodeOrNull(byte[] body) {
        try {
            return decode(body);
        } catch (RuntimeException e) {
            return null;
        }
    }

    static Outbound decode(byte[] body) {
        ByteBuffer b = ByteBuffer.wrap(body);
        byte[] topic = new byte[b.get() & 0xff];
        b.get(topic);
        int partition = b.getInt();
        long ts = b.getLong();
        int keyLen = b.getInt();
        byte[] key = null;
        if (keyLen >= 0) {
            key = new byte[keyLen];
            b.get(key);
        }
        byte[] value = new byte[b.getInt()];
        b.get(value);
        int reasonLen = b.getShort() & 0xffff;
        String reason = null;
        if (reasonLen != 0xffff) {
            byte[] r = new byte[reasonLen];
            b.get(r);
            reason = new String(r, StandardCharsets.UTF_8);
        }
        return new Outbound(
                new String(topic, StandardCharsets.UTF_8), partition, ts, key, value, reason);
    }
}
