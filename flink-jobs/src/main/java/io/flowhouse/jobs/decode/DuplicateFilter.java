// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.jobs.decode.StreamWindow.Verdict;
import java.util.Iterator;
import java.util.Map;
import org.apache.flink.api.common.state.MapState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.metrics.Counter;

/**
 * Drops a datagram the job has already seen, before anything counts it: a spool re-send, or the
 * same datagram stored twice in Kafka (an acknowledgement lost, then the send retried from the
 * spool), read by the stream or by {@code job reprocess}. Keyed like the decode step; per agent
 * stream of the key ({@link DatagramStamp#streamId}) a {@link StreamWindow} in keyed state, so a
 * Flink replay restores exactly what had been seen at the checkpoint. One map look-up and one write
 * per datagram.
 *
 * <p>Bounded: at most {@code maxStreams} streams per key (the least recently received is forgotten
 * when another begins; its later re-sends can then no longer be recognised) and {@code maxGaps}
 * gaps per stream, and forgotten with the rest of the key's state when it goes idle. Datagrams
 * without a stamp (envelope schema 1) are never checked.
 */
final class DuplicateFilter {

    static final MapStateDescriptor<Long, long[]> STREAMS =
            new MapStateDescriptor<>(
                    "dedup-streams",
                    Types.LONG,
                    PrimitiveArrayTypeInfo.LONG_PRIMITIVE_ARRAY_TYPE_INFO);

    private final MapState<Long, long[]> streams;
    private final int maxStreams;
    private final int maxGaps;
    private final Counter unverified;
    private final Counter evicted;
    private final long[][] out = new long[1][];

    // The stream id of the last stamp seen: one exporter's datagrams come in runs.
    private String lastAgent;
    private long lastEpoch;
    private long lastStream;
    private long lastId;

    DuplicateFilter(
            MapState<Long, long[]> streams,
            int maxStreams,
            int maxGaps,
            Counter unverified,
            Counter evicted) {
        this.streams = streams;
        this.maxStreams = maxStreams;
        this.maxGaps = maxGaps;
        this.unverified = unverified;
        this.evicted = evicted;
    }

    /** Records the datagram as seen; returns what it was ({@link Verdict#NEW} without a stamp). */
    Verdict see(RawDatagram d) throws Exception {
        DatagramStamp s = d.stamp();
        if (s == null) {
            return Verdict.NEW;
        }
        Long id = streamId(d.agentId(), s);
        long[] w = streams.get(id);
        Verdict v;
        if (w == null) {
            makeRoom();
            out[0] = StreamWindow.first(s.sequence(), d.receivedMillis());
            v = Verdict.NEW;
        } else {
            v = StreamWindow.see(w, s.sequence(), d.receivedMillis(), maxGaps, out);
        }
        if (v == Verdict.UNVERIFIED) {
            unverified.inc();
        }
        if (v != Verdict.DUPLICATE) {
            streams.put(id, out[0]);
        }
        return v;
    }

    /** Forgets every stream of the key (the key went idle, or its input ended). */
    void clear() {
        streams.clear();
    }

    private long streamId(String agent, DatagramStamp s) {
        if (s.epoch() != lastEpoch || s.stream() != lastStream || !agent.equals(lastAgent)) {
            lastId = s.streamId(agent);
            lastAgent = agent;
            lastEpoch = s.epoch();
            lastStream = s.stream();
        }
        return lastId;
    }

    /** Before a new stream: forgets the least recently received one if the key is full. */
    private void makeRoom() throws Exception {
        int n = 0;
        Long oldest = null;
        long oldestMillis = Long.MAX_VALUE;
        for (Iterator<Map.Entry<Long, long[]>> it = streams.iterator(); it.hasNext(); ) {
            Map.Entry<Long, long[]> e = it.next();
            n++;
            long last = e.getValue()[StreamWindow.LAST_RECEIVED];
            if (last < oldestMillis) {
                oldestMillis = last;
                oldest = e.getKey();
            }
        }
        if (n >= maxStreams && oldest != null) {
            streams.remove(oldest);
            evicted.inc();
        }
    }
}
