// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.pcap;

import java.nio.ByteBuffer;

/**
 * Where captured frames come from: a live interface ({@link Pcap4jPacketSource}) or a file ({@link
 * PcapFilePacketSource}). {@link #run} delivers frames on the calling thread until the source ends
 * or {@link #close()} is called from another thread.
 */
public interface PacketSource extends AutoCloseable {

    /** Receives frames; the buffer is valid only during the call. */
    interface FrameConsumer {
        /**
         * One frame.
         *
         * @param frame captured bytes, position to limit, big-endian
         * @param linkType pcap LINKTYPE
         * @param timestampNanos capture time, epoch ns
         * @param originalLength length on the wire
         */
        void frame(ByteBuffer frame, int linkType, long timestampNanos, int originalLength);

        /** Called when no frame arrived for a while (live capture timeout); flush what waits. */
        default void idle() {}
    }

    /**
     * Delivers frames until the end of the source or {@link #close()}.
     *
     * @return frames delivered
     */
    long run(FrameConsumer consumer) throws Exception;

    /** A short description for logs: file name or interface. */
    String describe();

    /** Stops {@link #run} (from any thread) and releases the source. */
    @Override
    void close();
}
