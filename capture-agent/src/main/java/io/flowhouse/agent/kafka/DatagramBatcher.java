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
 * without a batcher. Memory is bounded by the keys heard within one linger times {@code maxBytes};
 * a key's empty batch is forgotten at the next timer round.
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
        Key k = new Key(key);
        while (true) {
            Pending p = pending.computeIfAbsent(k, x -> new Pending(key));
            if (p.add(receivedMillis, datagram)) {
                return;
            }
            // The timer forgot this empty batch between the look-up and the add: look again.
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
        private final byte[][] datagrams = new byte[maxDatagrams][];
        private int count;
        private int bytes;
        private long firstMillis;
        private long firstNanos;
        private boolean retired;

        Pending(byte[] key) {
            this.key = key;
        }

        /** Adds a datagram; false if this batch was forgotten and takes none. */
        synchronized boolean add(long receivedMillis, byte[] datagram) {
            if (retired) {
                return false;
            }
            int entry = RawDatagramCodec.batchEntrySize(datagram.length);
            if (count > 0 && bytes + entry > maxBytes) {
                flush(BatchFlush.BYTES);
            }
            if (count == 0) {
                firstMillis = receivedMillis;
                firstNanos = System.nanoTime();
                bytes = 2; // the schema version field
            }
            datagrams[count++] = datagram;
            bytes += entry;
            if (count == maxDatagrams) {
                flush(BatchFlush.DATAGRAMS);
            }
            return true;
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
                    count == 1 ? datagrams[0] : RawDatagramCodec.encodeBatch(datagrams, count);
            int n = count;
            Arrays.fill(datagrams, 0, count, null);
            count = 0;
            bytes = 0;
            metrics.batchFlushed(why, n);
            sink.publish(new Outbound(topic, -1, firstMillis, key, value, null, n));
        }
    }
}
