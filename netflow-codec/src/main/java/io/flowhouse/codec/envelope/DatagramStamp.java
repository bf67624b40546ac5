// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import java.nio.charset.StandardCharsets;

/**
 * Where a datagram entered the pipeline, fixed once by the capture agent that received it and kept
 * with the datagram through the spool, Kafka, replays and reprocessing. Together with the
 * envelope's agent id it names one datagram: a re-send of the same datagram carries the same stamp,
 * and two datagrams never share one.
 *
 * <p>The agent keeps one <em>stream</em> per exporter it hears from: {@code epoch} is the agent's
 * run (advanced at every start and kept on disk), {@code stream} a number drawn from a counter of
 * that run whenever a stream begins, and {@code sequence} counts the stream's datagrams from 0. A
 * stream number is never reused within an epoch, so an exporter that leaves the agent's bounded
 * table and comes back starts a new stream instead of repeating sequence numbers.
 *
 * @param epoch the agent run (uint64)
 * @param stream the stream within the run (uint64)
 * @param sequence the datagram's position in its stream, from 0 (uint64)
 */
public record DatagramStamp(long epoch, long stream, long sequence) {

    private static final long SEED = 0x7374_7265_616d_4964L; // "streamId"

    /**
     * The 64-bit name of the stream {@code (agentId, epoch, stream)}: what the job keys its
     * duplicate check and row ids on. Never 0 (0 means "no stamp").
     */
    public static long streamId(String agentId, long epoch, long stream) {
        long h = SEED;
        byte[] id = agentId.getBytes(StandardCharsets.UTF_8);
        h = mix(h, id.length);
        int i = 0;
        for (; i + 8 <= id.length; i += 8) {
            long w = 0;
            for (int j = 0; j < 8; j++) {
                w = (w << 8) | (id[i + j] & 0xff);
            }
            h = mix(h, w);
        }
        long tail = 0;
        for (; i < id.length; i++) {
            tail = (tail << 8) | (id[i] & 0xff);
        }
        h = mix(h, tail);
        h = mix(h, epoch);
        h = mix(h, stream);
        return h == 0 ? 1 : h;
    }

    /** This stamp's stream name for a datagram received by {@code agentId}. */
    public long streamId(String agentId) {
        return streamId(agentId, epoch, stream);
    }

    /** One round: add the value to the state and run the SplitMix64 finalizer. */
    static long mix(long h, long v) {
        long z = h + v * 0x9e37_79b9_7f4a_7c15L + 0x9e37_79b9_7f4a_7c15L;
        z = (z ^ (z >>> 30)) * 0xbf58_476d_1ce4_e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d0_49bb_1331_11ebL;
        return z ^ (z >>> 31);
    }
}
