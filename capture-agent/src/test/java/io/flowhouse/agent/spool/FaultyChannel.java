// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A real file channel with injected faults, for the failures a test cannot make happen on a real
 * device here (EIO needs a failing disk or device-mapper, which this machine lacks): a write that
 * fails after writing half of what it was given, and a truncate that fails. Everything else goes to
 * the file.
 */
final class FaultyChannel extends FileChannel {

    /** What fails now; shared by every channel a test's spool opens. */
    static final class Faults {
        volatile boolean writes;
        volatile boolean truncates;
        volatile int writeFailures;
    }

    private final FileChannel file;
    private final Faults faults;

    FaultyChannel(FileChannel file, Faults faults) {
        this.file = file;
        this.faults = faults;
    }

    private static IOException eio() {
        return new IOException("Input/output error");
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        if (faults.writes) {
            faults.writeFailures++;
            // Half of it reaches the file, as when a device fails in the middle of a write.
            ByteBuffer half = src.duplicate();
            half.limit(half.position() + half.remaining() / 2);
            file.write(half, position);
            throw eio();
        }
        return file.write(src, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (faults.writes) {
            faults.writeFailures++;
            throw eio();
        }
        return file.write(src);
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        if (faults.truncates) {
            throw eio();
        }
        file.truncate(size);
        return this;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return file.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return file.read(dsts, offset, length);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        if (faults.writes) {
            throw eio();
        }
        return file.write(srcs, offset, length);
    }

    @Override
    public long position() throws IOException {
        return file.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        file.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return file.size();
    }

    @Override
    public void force(boolean metaData) throws IOException {
        file.force(metaData);
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target)
            throws IOException {
        return file.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count)
            throws IOException {
        return file.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return file.read(dst, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return file.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return file.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return file.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        file.close();
    }
}
