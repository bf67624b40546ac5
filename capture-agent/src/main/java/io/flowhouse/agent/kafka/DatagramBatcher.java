// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.kafka;

import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.metrics.AgentMetrics.BatchFlush;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Gathers the accepted datagrams of one Kafka key (one exporter, or one sFlow agent) into one
 * {@code flows.raw} batch record ({@link RawDatagramCodec#encodeBatch}): Kafka's cost is per record
 * far more than per byte, so N datagrams in one record cost the agent, the producer's network
 * thread and the broker about one record's work. Each datagram keeps its own envelope and stamp.
 *
 * <p>A key's batch is written when it holds {@code maxDatagrams}, when the next datagram would take
 * it past {@code maxBytes}, when its first datagram has waited {@code linger} (a timer thread looks
 * every half linger), and at {@link #close()}. A batch of one datagram is written as that
 * datagram's own envelope. With {@code maxDatagrams} 1 every datagram is its own record at once, as
 * without a batcher. Each datagram's envelope is written straight into its key's batch buffer (no
 * array of its own, one copy of the payload from the receive buffer); the buffer grows by doubling
 * up to {@code maxBytes} (or one larger datagram) and is kept while the key is heard. Memory is
 * bounded by the keys heard within one timer round times {@code maxBytes}; a key's empty batch and
 * its buffer are forgotten at the next timer round.
 *
 * <p>One key's datagrams are added and written under that key's lock, so they reach the sink in
 * arrival order whichever thread adds them.
 */
public final class DatagramBatcher implements AutoCloseable {

    private final RecordSink sink;
    private final String topic;
    private final int maxDatagrams;
    private final int maxBytes;
    private final long lingerNanos;
    private final AgentMetrics metrics;
    private final ConcurrentHashMap<Key, Pending> pending = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer;
    private volatile boolean closed;

    /**
     * One datagram's envelope ({@link RawDatagramCodec#encode}), written where the batcher wants
     * it. Used only within {@link #add}: it may view a receive buffer that is reused afterwards.
     */
    public interface Envelope {
        /** The envelope's encoded size, in bytes. */
        int size();

        /**
         * Writes the envelope's {@link #size()} bytes into {@code out} at {@code offset}.
         *
         * @return the offset after them
         */
        int writeTo(byte[] out, int offset);
    }

    /** An envelope already encoded into its own array. */
    private record Encoded(byte[] bytes) implements Envelope {
        @Override
        public int size() {
            return bytes.length;
        }

        @Override
        public int writeTo(byte[] out, int offset) {
            System.arraycopy(bytes, 0, out, offset, bytes.length);
            return offset + bytes.length;
        }
    }

    /**
     * @param maxDatagrams datagrams per record at most ({@code kafka.record-max-datagrams})
     * @param maxBytes bytes of a batch record at most ({@code kafka.record-max-bytes}); a datagram
     *     larger than this alone is written as its own record
     * @param linger how long a batch waits for more datagrams ({@code kafka.record-linger-ms})
     */
    public DatagramBatcher(
            RecordSink sink,
            String topic,
            int maxDatagrams,
            int maxBytes,
            Duration linger,
            AgentMetrics metrics) {
        if (maxDatagrams < 1 || maxBytes < 1 || linger.isNegative()) {
            throw new IllegalArgumentException(
                    "batch of " + maxDatagrams + " datagrams, " + maxBytes + " bytes, " + linger);
        }
        this.sink = sink;
        this.topic = topic;
        this.maxDatagrams = maxDatagrams;
        this.maxBytes = maxBytes;
        this.lingerNanos = linger.toNanos();
        this.metrics = metrics;
        if (maxDatagrams == 1) {
            timer = null;
        } else {
            timer =
                    Executors.newSingleThreadScheduledExecutor(
                            r -> {
                                Thread t = new Thread(r, "flowhouse-datagram-batcher");
                                t.setDaemon(true);
                                return t;
                            });
            long period = Math.max(1_000_000L, lingerNanos / 2);
            timer.scheduleWithFixedDelay(this::flushDue, period, period, TimeUnit.NANOSECONDS);
        }
    }

    /** Whether datagrams are gathered at all (more than one per record). */
    public boolean batching() {
        return maxDatagrams > 1;
    }

    /**
     * Takes one encoded datagram ({@link RawDatagramCodec#encode}) of partition key {@code key};
     * never blocks on Kafka.
     */
    public void add(byte[] key, long receivedMillis, byte[] datagram) {
        if (maxDatagrams == 1 || closed) {
            sink.publish(new Outbound(topic, -1, receivedMillis, key, datagram, null));
            return;
        }
        add(key, receivedMillis, new Encoded(datagram));
    }

    /**
     * Takes one datagram of partition key {@code key} as an envelope to write: into the key's
     * batch, or into an array of its own when datagrams are not gathered; never blocks on Kafka.
     */
    public void add(byte[] key, long receivedMillis, Envelope datagram) {
        if (maxDatagrams == 1 || closed) {
            byte[] value = new byte[datagram.size()];
            checkWritten(datagram.writeTo(value, 0), value.length);
            sink.publish(new Outbound(topic, -1, receivedMillis, key, value, null));
            return;
        }
        Key k = new Key(key);
        while (true) {
            Pending p = pending.computeIfAbsent(k, x -> new Pending(key));
            if (p.add(receivedMillis, datagram)) {
                return;
            }
            // The timer forgot this empty batch between the look-up and the add: look again.
        }
    }

    private static void checkWritten(int end, int expected) {
        if (end != expected) {
            throw new IllegalStateException("envelope wrote to " + end + ", sized to " + expected);
        }
    }

    /** Writes every batch whose first datagram waited a linger; forgets empty ones. */
    void flushDue() {
        long now = System.nanoTime();
        for (Pending p : pending.values()) {
            p.flushIfDue(now);
        }
    }

    /** Writes every batch now (the agent is stopping); later datagrams go out one by one. */
    @Override
    public void close() {
        closed = true;
        if (timer != null) {
            timer.shutdownNow();
            try {
                timer.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Pending p : pending.values()) {
            p.flush(BatchFlush.SHUTDOWN);
        }
    }

    /** A partition key with value equality. */
    private record Key(byte[] bytes, int hash) {
        Key(byte[] bytes) {
            this(bytes, Arrays.hashCode(bytes));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key other
                    && hash == other.hash
                    && Arrays.equals(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** One key's batch being gathered. */
    private final class Pending {
        private final byte[] key;
        // The batch record being written: schema version, then each datagram's field.
        private byte[] buffer = new byte[0];
        private int length;
        private int count;
        // Where the first datagram's envelope lies: a batch of one is written as that envelope.
        private int firstOffset;
        private int firstLength;
        private long firstMillis;
        private long firstNanos;
        private boolean retired;

        Pending(byte[] key) {
            this.key = key;
        }

        /** Adds a datagram; false if this batch was forgotten and takes none. */
        synchronized boolean add(long receivedMillis, Envelope datagram) {
            if (retired) {
                return false;
            }
            int size = datagram.size();
            int entry = RawDatagramCodec.batchEntrySize(size);
            if (count > 0 && length + entry > maxBytes) {
                flush(BatchFlush.BYTES);
            }
            if (count == 0) {
                firstMillis = receivedMillis;
                firstNanos = System.nanoTime();
                reserve(RawDatagramCodec.batchHeaderSize() + entry);
                length = RawDatagramCodec.writeBatchHeader(buffer, 0);
            } else {
                reserve(length + entry);
            }
            int at = RawDatagramCodec.writeBatchEntryHeader(buffer, length, size);
            int end = datagram.writeTo(buffer, at);
            checkWritten(end, at + size);
            if (count == 0) {
                firstOffset = at;
                firstLength = size;
            }
            length = end;
            count++;
            if (count == maxDatagrams) {
                flush(BatchFlush.DATAGRAMS);
            }
            return true;
        }

        private void reserve(int needed) {
            if (buffer.length < needed) {
                int grown = (int) Math.min((long) maxBytes, 2L * buffer.length);
                // No floor: a key heard once (a spoofed source) holds only its datagram.
                buffer = Arrays.copyOf(buffer, Math.max(needed, grown));
            }
        }

        synchronized void flushIfDue(long now) {
            if (count == 0) {
                // Idle for a whole timer round: forget it, so the map holds only recent keys.
                retired = true;
                pending.remove(new Key(key), this);
            } else if (now - firstNanos >= lingerNanos) {
                flush(BatchFlush.LINGER);
            }
        }

        synchronized void flush(BatchFlush why) {
            if (count == 0) {
                return;
            }
            byte[] value =
                    count == 1
                            ? Arrays.copyOfRange(buffer, firstOffset, firstOffset + firstLength)
                            : Arrays.copyOf(buffer, length);
            int n = count;
            count = 0;
            length = 0;
            metrics.batchFlushed(why, n);
            sink.publish(new Outbound(topic, -1, firstMillis, key, value, null, n));
        }
    }
}
