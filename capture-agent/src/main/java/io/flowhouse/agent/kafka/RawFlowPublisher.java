// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.kafka;

import io.flowhouse.agent.config.AgentConfig;
import io.flowhouse.agent.metrics.AgentMetrics;
import io.flowhouse.agent.metrics.AgentMetrics.Drop;
import io.flowhouse.agent.metrics.RateLimitedLog;
import io.flowhouse.agent.spool.DiskSpool;
import io.flowhouse.agent.spool.SpoolWriteException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the Kafka producer and the on-disk spool; the one place records leave the agent.
 *
 * <p>Hot path ({@link #publish}): while Kafka keeps up, records go straight to an idempotent {@code
 * acks=all} producer with lz4 compression and large batches, with a callback and never a blocking
 * wait ({@code max.block.ms=0}: a full producer buffer or missing metadata fails the send at once
 * instead of stalling the event loop). A send that fails - at once or later in its callback -
 * switches the publisher to <em>spooling</em>: from then on records are appended to the {@link
 * DiskSpool} in arrival order. Only when the spool is full is a record dropped, and counted.
 *
 * <p>A drain thread waits until every record already handed to the producer is settled (so older
 * records are not overtaken), then sends spooled records oldest first and removes them only once
 * Kafka acknowledged them. When the spool is empty it switches back to direct sends under the same
 * lock appends take, so records of one exporter (one event-loop thread) keep their order. If a
 * record handed to the producer fails after its delivery timeout while later ones were spooled, it
 * is spooled behind them: it is delivered, possibly out of order (counted as a send error).
 *
 * <p>{@link #close()} stops taking records, drains the spool for as long as the shutdown timeout
 * allows, flushes the producer (records it could not deliver come back through their callbacks and
 * are spooled), and closes the spool with an fsync: what was not delivered waits on disk for the
 * next start.
 */
public final class RawFlowPublisher implements RecordSink, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RawFlowPublisher.class);

    /** Records per drain round. */
    static final int DRAIN_RECORDS = 5_000;

    /** Bytes per drain round. */
    static final int DRAIN_BYTES = 8 * 1024 * 1024;

    /** Default of {@code spool.sync-interval}. */
    public static final Duration DEFAULT_SPOOL_SYNC = Duration.ofSeconds(1);

    private final Producer<byte[], byte[]> producer;
    private final DiskSpool spool;
    private final AgentMetrics metrics;
    private final Duration deliveryTimeout;
    private final Duration spoolSyncInterval;
    private final RateLimitedLog log = new RateLimitedLog(LOG, Duration.ofSeconds(10));
    private final Object lock = new Object();
    private final AtomicLong inFlight = new AtomicLong();
    private final Thread drainer;

    private volatile String[] sentTopics = new String[0];
    private volatile LongAdder[] sentCounters = new LongAdder[0];
    private volatile boolean spooling;
    private volatile boolean closing;
    private volatile boolean closed;

    public RawFlowPublisher(AgentConfig.Kafka config, DiskSpool spool, AgentMetrics metrics) {
        this(config, spool, metrics, DEFAULT_SPOOL_SYNC);
    }

    /**
     * @param spoolSyncInterval how often the drain thread forces the spool's current segment to
     *     disk ({@code spool.sync-interval}; zero: only at segment rotation and close)
     */
    public RawFlowPublisher(
            AgentConfig.Kafka config,
            DiskSpool spool,
            AgentMetrics metrics,
            Duration spoolSyncInterval) {
        this(
                new KafkaProducer<>(producerProperties(config)),
                spool,
                metrics,
                config.deliveryTimeout(),
                spoolSyncInterval);
    }

    RawFlowPublisher(
            Producer<byte[], byte[]> producer,
            DiskSpool spool,
            AgentMetrics metrics,
            Duration deliveryTimeout,
            Duration spoolSyncInterval) {
        this.producer = producer;
        this.spool = spool;
        this.metrics = metrics;
        this.deliveryTimeout = deliveryTimeout;
        this.spoolSyncInterval = spoolSyncInterval;
        metrics.spool(spool);
        // Records left by an earlier run go first.
        this.spooling = !spool.isEmpty();
        this.drainer = new Thread(this::drainLoop, "flowhouse-spool-drainer");
        drainer.setDaemon(true);
        drainer.start();
    }

    /** The producer settings: idempotent, acks=all, lz4, batching for throughput, no blocking. */
    public static Properties producerProperties(AgentConfig.Kafka c) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, c.bootstrapServers());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, c.compression());
        p.put(ProducerConfig.LINGER_MS_CONFIG, Integer.toString(c.lingerMs()));
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(c.batchBytes()));
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(c.bufferMemoryBytes()));
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(8 * 1024 * 1024));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "0");
        long delivery = c.deliveryTimeout().toMillis();
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(delivery));
        p.put(
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                Long.toString(Math.min(30_000, Math.max(1_000, delivery - 5_000 - c.lingerMs()))));
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "1000");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "flowhouse-agent");
        p.putAll(c.properties());
        return p;
    }

    /**
     * Hands a record over. Never blocks on Kafka: the record is sent, spooled, or (spool full)
     * dropped and counted.
     */
    @Override
    public void publish(Outbound r) {
        if (closed) {
            metrics.dropped(Drop.SHUTDOWN, r.datagrams());
            return;
        }
        if (!spooling) {
            inFlight.incrementAndGet();
            try {
                producer.send(toRecord(r), new DirectCallback(r));
                return;
            } catch (RuntimeException e) {
                // Not an ApiException (those come through the callback): producer closed or
                // a serializer problem. Spool it.
                inFlight.decrementAndGet();
                failedDirect(r, e);
                return;
            }
        }
        spoolOrDrop(r, false);
    }

    /**
     * Waits, up to {@code timeout}, until the producer knows the partitions of every topic, so the
     * first records do not take the spool path only because metadata was not fetched yet. Returns
     * false (and the agent starts anyway, spooling) if Kafka does not answer in time.
     */
    public boolean awaitMetadata(List<String> topics, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (String topic : topics) {
            while (true) {
                try {
                    if (!producer.partitionsFor(topic).isEmpty()) {
                        break;
                    }
                } catch (org.apache.kafka.common.KafkaException e) {
                    // Not known yet: the call asked for it; ask again shortly.
                }
                if (System.nanoTime() > deadline) {
                    LOG.warn(
                            "kafka did not return metadata for {} within {}; starting anyway,"
                                    + " spooling until it does",
                            topic,
                            timeout);
                    return false;
                }
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return true;
    }

    /** Whether records currently go to the spool. */
    public boolean isSpooling() {
        return spooling;
    }

    public long inFlight() {
        return inFlight.get();
    }

    public Producer<byte[], byte[]> producer() {
        return producer;
    }

    private void failedDirect(Outbound r, Exception e) {
        metrics.sendError();
        if (!(e instanceof RetriableException)
                && !(e instanceof org.apache.kafka.common.errors.TimeoutException)
                && e instanceof org.apache.kafka.common.errors.ApiException) {
            metrics.dropped(Drop.KAFKA_FATAL, r.datagrams());
            log.warn("kafka refused a record for good: {}", e.toString());
            return;
        }
        log.warn("kafka send failed, spooling: {}", e.toString());
        spoolOrDrop(r, true);
    }

    private void spoolOrDrop(Outbound r, boolean enterSpooling) {
        synchronized (lock) {
            if (enterSpooling && !spooling) {
                spooling = true;
                LOG.info("kafka unavailable or slow; spooling records to {} ", "disk");
            }
            if (!spooling) {
                // The drainer emptied the spool meanwhile: the direct path is open again.
                inFlight.incrementAndGet();
                producer.send(toRecord(r), new DirectCallback(r));
                return;
            }
            try {
                if (spool.append(r)) {
                    metrics.spooled(r.datagrams());
                } else {
                    metrics.dropped(Drop.SPOOL_FULL, r.datagrams());
                    log.warn("spool full ({} bytes); dropping records", spool.maxBytes());
                }
            } catch (IOException e) {
                // The spool stays consistent and writes again once it can; until then records
                // that do not fit in its buffer are dropped, counted by why.
                boolean noSpace =
                        e instanceof SpoolWriteException w
                                ? w.noSpace()
                                : SpoolWriteException.isNoSpace(e);
                metrics.dropped(noSpace ? Drop.SPOOL_NO_SPACE : Drop.SPOOL_IO_ERROR, r.datagrams());
                log.error(
                        "spool write failed; dropping records until it writes again: {}",
                        (noSpace ? "no space left: " : "I/O error: ") + e.getMessage());
            }
        }
    }

    private LongAdder sentCounter(String topic) {
        // Topics are few and fixed: one cached counter each, no map look-up per record.
        LongAdder[] cache = sentCounters;
        for (int i = 0; i < cache.length; i += 1) {
            if (topic.equals(sentTopics[i])) {
                return cache[i];
            }
        }
        synchronized (lock) {
            String[] topics = java.util.Arrays.copyOf(sentTopics, sentTopics.length + 1);
            LongAdder[] counters = java.util.Arrays.copyOf(sentCounters, sentCounters.length + 1);
            topics[topics.length - 1] = topic;
            counters[counters.length - 1] = metrics.sentCounter(topic);
            sentTopics = topics;
            sentCounters = counters;
            return counters[counters.length - 1];
        }
    }

    private ProducerRecord<byte[], byte[]> toRecord(Outbound r) {
        ProducerRecord<byte[], byte[]> rec =
                new ProducerRecord<>(
                        r.topic(),
                        r.partition() < 0 ? null : r.partition(),
                        r.timestampMillis(),
                        r.key(),
                        r.value());
        if (r.reason() != null) {
            rec.headers()
                    .add(new RecordHeader("reason", r.reason().getBytes(StandardCharsets.UTF_8)));
        }
        return rec;
    }

    private final class DirectCallback implements Callback {
        private final Outbound record;

        DirectCallback(Outbound record) {
            this.record = record;
        }

        @Override
        public void onCompletion(RecordMetadata metadata, Exception e) {
            if (e == null) {
                sentCounter(record.topic()).increment();
                if (record.datagrams() > 1) {
                    metrics.sentBatch(record.topic(), record.datagrams());
                }
            } else {
                failedDirect(record, e);
            }
            inFlight.decrementAndGet();
        }
    }

    private void drainLoop() {
        long backoff = 50;
        while (!closed) {
            try {
                spool.syncIfDue(spoolSyncInterval);
                if (!spooling) {
                    sleep(20);
                    continue;
                }
                if (drainOnce()) {
                    backoff = 50;
                } else {
                    sleep(backoff);
                    backoff = Math.min(2_000, backoff * 2);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException | IOException e) {
                log.error("spool drain failed: {}", e.toString());
                try {
                    sleep(1_000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /**
     * One drain round.
     *
     * @return true if progress was made (or nothing needs doing), false to back off
     */
    boolean drainOnce() throws IOException, InterruptedException {
        if (inFlight.get() > 0) {
            // Older records are still with the producer; let them settle first.
            producer.flush();
            return inFlight.get() == 0;
        }
        List<Outbound> batch;
        synchronized (lock) {
            if (spool.isEmpty()) {
                spooling = false;
                LOG.info("spool drained; sending to kafka directly");
                return true;
            }
        }
        batch = spool.peek(DRAIN_RECORDS, DRAIN_BYTES);
        if (batch.isEmpty()) {
            // What waits is still in the spool's write buffer, which cannot be written (disk
            // full): back off until it can.
            return false;
        }
        List<CompletableFuture<RecordMetadata>> acks = new ArrayList<>(batch.size());
        for (Outbound r : batch) {
            CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
            acks.add(f);
            try {
                producer.send(
                        toRecord(r),
                        (m, e) -> {
                            if (e == null) {
                                f.complete(m);
                            } else {
                                f.completeExceptionally(e);
                            }
                        });
            } catch (RuntimeException e) {
                f.completeExceptionally(e);
            }
            if (f.isCompletedExceptionally()) {
                // Kafka refused at once (no metadata, buffer full): stop adding to this round.
                break;
            }
        }
        producer.flush();
        int delivered = 0;
        Exception failure = null;
        for (CompletableFuture<RecordMetadata> f : acks) {
            try {
                f.get(deliveryTimeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
                delivered++;
            } catch (ExecutionException e) {
                failure = (Exception) e.getCause();
                break;
            } catch (java.util.concurrent.TimeoutException e) {
                failure = e;
                break;
            }
        }
        if (delivered > 0) {
            spool.commit(delivered);
            metrics.unspooled(delivered);
            for (int i = 0; i < delivered; i++) {
                Outbound r = batch.get(i);
                metrics.sent(r.topic());
                if (r.datagrams() > 1) {
                    metrics.sentBatch(r.topic(), r.datagrams());
                }
            }
        }
        if (failure instanceof BufferExhaustedException && delivered > 0) {
            // The round filled the producer's buffer: a normal end of a round, not an error.
            return true;
        }
        if (failure != null) {
            metrics.sendError();
            log.warn("spool drain: kafka not ready ({})", failure.toString());
            return delivered > 0;
        }
        return true;
    }

    private static void sleep(long millis) throws InterruptedException {
        Thread.sleep(millis);
    }

    /**
     * Stops taking records and delivers or persists everything: drains the spool while Kafka
     * answers, up to {@code timeout}; then flushes the producer and fsyncs the spool.
     */
    public void close(Duration timeout) {
        if (closing) {
            return;
        }
        closing = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        // Let the drainer finish while there is time and it makes progress.
        try {
            while (System.nanoTime() < deadline && (spooling || inFlight.get() > 0)) {
                if (!spooling) {
                    producer.flush();
                    break;
                }
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closed = true;
        drainer.interrupt();
        try {
            drainer.join(Math.max(1_000, timeout.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long remaining = Math.max(0, deadline - System.nanoTime());
        // Records the producer cannot deliver in time fail through their callbacks into the spool.
        producer.close(Duration.ofNanos(remaining));
        synchronized (lock) {
            spool.close();
        }
        if (spool.records() > 0) {
            LOG.warn(
                    "shut down with {} records in the spool; they are sent on the next start",
                    spool.records());
        }
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(30));
    }
}
