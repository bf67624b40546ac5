// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.stamp;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.DatagramStamp;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Stamps datagrams where they enter the pipeline: one stream per exporter (address and port) per
 * receive thread, numbered from a counter of the agent's run, with a sequence per stream. The
 * tables are bounded: beyond {@code maxStreams} exporters per thread the least recently heard one
 * is forgotten, and if it comes back it begins a new stream with a new number, so no stamp repeats
 * however many exporters (or spoofed sources) come and go.
 *
 * <p>Each receive thread keeps its own table (no lock, no shared write on the hot path; the
 * kernel's SO_REUSEPORT hash sends one exporter to one socket, hence one thread). Only the start of
 * a stream touches the shared counter.
 */
public final class DatagramStamper {

    private final long epoch;
    private final int maxStreams;
    private final AtomicLong streams = new AtomicLong();
    private final LongAdder evicted = new LongAdder();
    private final ThreadLocal<Table> tables;

    /**
     * @param epoch the agent's run ({@link AgentEpoch})
     * @param maxStreams streams each receive thread keeps before it forgets the least recent
     */
    public DatagramStamper(long epoch, int maxStreams) {
        if (maxStreams < 1) {
            throw new IllegalArgumentException("maxStreams " + maxStreams + " (expected: >= 1)");
        }
        this.epoch = epoch;
        this.maxStreams = maxStreams;
        this.tables = ThreadLocal.withInitial(Table::new);
    }

    /** The stamp of the next datagram from {@code exporter} on this thread. */
    public DatagramStamp stamp(ExporterKey exporter) {
        Stream s = tables.get().stream(exporter);
        return new DatagramStamp(epoch, s.number, s.next++);
    }

    public long epoch() {
        return epoch;
    }

    /** Streams begun in this run. */
    public long streamsStarted() {
        return streams.get();
    }

    /** Streams forgotten to keep a table within its bound. */
    public long streamsEvicted() {
        return evicted.sum();
    }

    /** One stream: its number and the sequence of its next datagram. */
    private static final class Stream {
        final long number;
        long next;

        Stream(long number) {
            this.number = number;
        }
    }

    /** A receive thread's streams, least recently heard first. */
    private final class Table extends LinkedHashMap<ExporterKey, Stream> {

        private static final long serialVersionUID = 1L;

        Table() {
            super(64, 0.75f, true);
        }

        Stream stream(ExporterKey exporter) {
            Stream s = get(exporter);
            if (s == null) {
                s = new Stream(streams.incrementAndGet());
                put(exporter, s);
            }
            return s;
        }

        @Override
        protected boolean removeEldestEntry(Map.Entry<ExporterKey, Stream> eldest) {
            if (size() > maxStreams) {
                evicted.increment();
                return true;
            }
            return false;
        }
    }
}
