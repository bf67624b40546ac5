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
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded, ordered, on-disk queue of {@link Outbound} records: where the agent puts datagrams
 * while Kafka is unreachable or slow, drained in order once it is back.
 *
 * <p>Layout: numbered segment files {@code 00000000000000000001.spool} in one directory, each a
 * sequence of frames {@code u32 length, u32 crc32c(body), body}; a {@code head} file holds the
 * segment and offset of the first record not yet delivered, rewritten atomically on every {@link
 * #commit}. Appends go through a write buffer; {@link #flush(boolean)} writes it out (and fsyncs on
 * request), {@link #close()} does both. On open, records left by an earlier run are counted and
 * will be drained first; a torn frame at the end of a segment (crash during a write) is cut off and
 * logged.
 *
 * <p>Bounded by bytes on disk: an append that would exceed the bound is refused (the caller counts
 * the drop). Consumed segments are deleted as soon as the head leaves them. Thread safe.
 */
public final class DiskSpool implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(DiskSpool.class);

    private static final String SUFFIX = ".spool";
    private static final int FRAME_HEADER = 8;
    private static final int WRITE_BUFFER = 256 * 1024;

    /** Largest frame body accepted on read; larger lengths mean corruption. */
    static final int MAX_FRAME = 16 * 1024 * 1024;

    private final Path dir;
    private final long maxBytes;
    private final long segmentBytes;
    private final TreeMap<Long, Long> segmentSizes = new TreeMap<>();
    private final ByteBuffer writeBuffer = ByteBuffer.allocate(WRITE_BUFFER);
    private final CRC32C crc = new CRC32C();

    private FileChannel writeChannel;
    private long writeSeq;
    private long headSeq;
    private long headOffset;
    private long records;
    private long diskBytes;
    private final List<long[]> peeked = new ArrayList<>();
    private boolean closed;

    private DiskSpool(Path dir, long maxBytes, long segmentBytes) {
        this.dir = dir;
        this.maxBytes = maxBytes;
        this.segmentBytes = segmentBytes;
    }

    /** Opens (creating if needed) the spool in {@code dir}, recovering what an earlier run left. */
    public static DiskSpool open(Path dir, long maxBytes, long segmentBytes) throws IOException {
        Files.createDirectories(dir);
        DiskSpool s = new DiskSpool(dir, maxBytes, segmentBytes);
        s.recover();
        return s;
    }

    private void recover() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                try {
                    long seq = Long.parseLong(name.substring(0, name.length() - SUFFIX.length()));
                    segmentSizes.put(seq, Files.size(f));
                } catch (NumberFormatException e) {
                    LOG.warn("ignoring unexpected file {} in the spool directory", f);
                }
            }
        }
        Path head = dir.resolve("head");
        headSeq = segmentSizes.isEmpty() ? 1 : segmentSizes.firstKey();
        headOffset = 0;
        if (Files.exists(head)) {
            String[] parts = Files.readString(head, StandardCharsets.US_ASCII).trim().split(" ");
            if (parts.length == 2) {
                long seq = Long.parseLong(parts[0]);
                if (segmentSizes.containsKey(seq)) {
                    headSeq = seq;
                    headOffset = Long.parseLong(parts[1]);
                } else if (!segmentSizes.isEmpty() && seq > segmentSizes.lastKey()) {
                    headSeq = seq;
                }
            }
        }
        // Segments before the head were fully delivered.
        for (Long seq : new ArrayList<>(segmentSizes.headMap(headSeq).keySet())) {
            Files.deleteIfExists(segment(seq));
            segmentSizes.remove(seq);
        }
        for (Map.Entry<Long, Long> e : new ArrayList<>(segmentSizes.entrySet())) {
            long seq = e.getKey();
            long start = seq == headSeq ? headOffset : 0;
            long[] scan = scan(seq, start);
            records += scan[0];
            if (scan[1] < e.getValue()) {
                LOG.warn(
                        "spool segment {} has a torn or corrupt frame at offset {}; cutting {} bytes",
                        seq,
                        scan[1],
                        e.getValue() - scan[1]);
                try (FileChannel ch = FileChannel.open(segment(seq), StandardOpenOption.WRITE)) {
                    ch.truncate(scan[1]);
                }
                segmentSizes.put(seq, scan[1]);
            }
        }
        diskBytes = segmentSizes.values().stream().mapToLong(Long::longValue).sum();
        writeSeq = segmentSizes.isEmpty() ? headSeq : segmentSizes.lastKey();
        openWriteSegment(writeSeq);
        if (records > 0) {
            LOG.info("spool {} holds {} records from an earlier run", dir, records);
        }
    }

    /** Counts valid frames from {@code start}; returns {records, end offset of the last valid}. */
    private long[] scan(long seq, long start) throws IOException {
        long n = 0;
        long pos = start;
        try (FileChannel ch = FileChannel.open(segment(seq), StandardOpenOption.READ)) {
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
            }
        }
        return new long[] {n, pos};
    }

    private void openWriteSegment(long seq) throws IOException {
        writeSeq = seq;
        writeChannel =
                FileChannel.open(
                        segment(seq),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.APPEND);
        segmentSizes.putIfAbsent(seq, writeChannel.size());
    }

    private Path segment(long seq) {
        return dir.resolve(String.format(java.util.Locale.ROOT, "%020d%s", seq, SUFFIX));
    }

    /**
     * Appends a record.
     *
     * @return false if the spool is full (nothing was written)
     */
    public synchronized boolean append(Outbound r) throws IOException {
        ensureOpen();
        byte[] body = encode(r);
        int frame = FRAME_HEADER + body.length;
        if (diskBytes + frame > maxBytes) {
            return false;
        }
        long writeSize = segmentSizes.get(writeSeq);
        if (writeSize > 0 && writeSize + frame > segmentBytes) {
            flushBuffer();
            writeChannel.force(false);
            writeChannel.close();
            openWriteSegment(writeSeq + 1);
        }
        if (writeBuffer.remaining() < frame) {
            flushBuffer();
        }
        int sum = crc(body, 0, body.length);
        if (frame > writeBuffer.capacity()) {
            ByteBuffer big = ByteBuffer.allocate(frame);
            big.putInt(body.length).putInt(sum).put(body).flip();
            while (big.hasRemaining()) {
                writeChannel.write(big);
            }
        } else {
            writeBuffer.putInt(body.length).putInt(sum).put(body);
        }
        segmentSizes.merge(writeSeq, (long) frame, Long::sum);
        diskBytes += frame;
        records++;
        return true;
    }

    /**
     * Returns records from the head, oldest first, without removing them: at most {@code
     * maxRecords}, and stopping once {@code maxBytes} are read (at least one record if any). {@link
     * #commit(int)} removes a prefix of what the last peek returned.
     */
    public synchronized List<Outbound> peek(int maxRecords, int maxBytes) throws IOException {
        ensureOpen();
        flushBuffer();
        peeked.clear();
        List<Outbound> out = new ArrayList<>();
        long seq = headSeq;
        long pos = headOffset;
        int bytes = 0;
        while (out.size() < maxRecords && (out.isEmpty() || bytes < maxBytes)) {
            Long size = segmentSizes.get(seq);
            if (size == null) {
                break;
            }
            if (pos >= size) {
                Long next = segmentSizes.higherKey(seq);
                if (next == null) {
                    break;
                }
                seq = next;
                pos = 0;
                continue;
            }
            int chunk = (int) Math.min(size - pos, Math.max(64 * 1024, maxBytes - bytes));
            ByteBuffer buf = ByteBuffer.allocate(chunk);
            try (FileChannel ch = FileChannel.open(segment(seq), StandardOpenOption.READ)) {
                readFully(ch, buf, pos);
                buf.flip();
                boolean progressed = false;
                while (buf.remaining() >= FRAME_HEADER
                        && out.size() < maxRecords
                        && (out.isEmpty() || bytes < maxBytes)) {
                    int len = buf.getInt(buf.position());
                    if (len < 0 || len > MAX_FRAME) {
                        throw new IOException("spool segment " + seq + " corrupt at offset " + pos);
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
                    if (crc(body, 0, len) != sum) {
                        throw new IOException(
                                "spool segment " + seq + " checksum mismatch at offset " + pos);
                    }
                    out.add(decode(body));
                    pos += FRAME_HEADER + len;
                    bytes += FRAME_HEADER + len;
                    peeked.add(new long[] {seq, pos});
                    progressed = true;
                }
            }
        }
        return out;
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
        records -= n;
        peeked.clear();
        for (Long seq : new ArrayList<>(segmentSizes.headMap(headSeq).keySet())) {
            diskBytes -= segmentSizes.remove(seq);
            Files.deleteIfExists(segment(seq));
        }
        if (records == 0 && headSeq == writeSeq) {
            // Empty: start a fresh segment so the consumed one can go.
            flushBuffer();
            writeChannel.close();
            diskBytes -= segmentSizes.remove(writeSeq);
            Files.deleteIfExists(segment(writeSeq));
            openWriteSegment(writeSeq + 1);
            headSeq = writeSeq;
            headOffset = 0;
        }
        writeHead();
    }

    private void writeHead() throws IOException {
        Path tmp = dir.resolve("head.tmp");
        Files.writeString(tmp, headSeq + " " + headOffset + "\n", StandardCharsets.US_ASCII);
        try {
            Files.move(
                    tmp,
                    dir.resolve("head"),
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, dir.resolve("head"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** Records waiting. */
    public synchronized long records() {
        return records;
    }

    /** Bytes on disk (and in the write buffer). */
    public synchronized long bytes() {
        return diskBytes;
    }

    public long maxBytes() {
        return maxBytes;
    }

    public synchronized boolean isEmpty() {
        return records == 0;
    }

    /** Writes buffered records to the file; with {@code fsync}, to the disk. */
    public synchronized void flush(boolean fsync) throws IOException {
        if (closed) {
            return;
        }
        flushBuffer();
        if (fsync) {
            writeChannel.force(false);
        }
    }

    private void flushBuffer() throws IOException {
        writeBuffer.flip();
        while (writeBuffer.hasRemaining()) {
            writeChannel.write(writeBuffer);
        }
        writeBuffer.clear();
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        flush(true);
        writeChannel.close();
        writeHead();
        closed = true;
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
