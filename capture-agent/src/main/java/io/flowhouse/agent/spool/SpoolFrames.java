// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.zip.CRC32C;

/**
 * The frame of a spool segment: {@code u32 length, u32 crc32c(body), body}. One instance per spool
 * (its checksum is not thread safe; the spool is).
 */
final class SpoolFrames {

    /** Bytes before a frame's body. */
    static final int HEADER = 8;

    /** Largest frame body accepted on read; larger lengths mean corruption. */
    static final int MAX_BODY = 16 * 1024 * 1024;

    private final CRC32C crc = new CRC32C();

    /**
     * Counts valid frames of a segment from its start; returns {records, end offset of the last
     * valid frame, records before {@code mark} or -1 if {@code mark} is not a frame boundary}.
     */
    long[] scan(FileChannel ch, long mark) throws IOException {
        long n = 0;
        long pos = 0;
        long before = mark == 0 ? 0 : -1;
        long size = ch.size();
        ByteBuffer header = ByteBuffer.allocate(HEADER);
        while (pos + HEADER <= size) {
            header.clear();
            readFully(ch, header, pos);
            header.flip();
            int len = header.getInt();
            int sum = header.getInt();
            if (len < 0 || len > MAX_BODY || pos + HEADER + len > size) {
                break;
            }
            ByteBuffer body = ByteBuffer.allocate(len);
            readFully(ch, body, pos + HEADER);
            if (crc(body.array(), 0, len) != sum) {
                break;
            }
            n++;
            pos += HEADER + len;
            if (pos == mark) {
                before = n;
            }
        }
        return new long[] {n, pos, before};
    }

    static void readFully(FileChannel ch, ByteBuffer buf, long pos) throws IOException {
        while (buf.hasRemaining()) {
            int n = ch.read(buf, pos);
            if (n < 0) {
                throw new IOException("unexpected end of spool segment at " + pos);
            }
            pos += n;
        }
    }

    int crc(byte[] b, int off, int len) {
        crc.reset();
        crc.update(b, off, len);
        return (int) crc.getValue();
    }
}
