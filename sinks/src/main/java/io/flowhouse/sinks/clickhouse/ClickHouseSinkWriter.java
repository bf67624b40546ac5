// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import com.clickhouse.client.api.insert.InsertSettings;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.api.common.operators.ProcessingTimeService;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Encodes values into RowBinary batches on the task thread and inserts full batches on one
 * background inserter thread, so encoding the next batch overlaps the network and server time of
 * the previous one.
 *
 * <ul>
 *   <li>A batch is sent when it reaches {@code batchMaxRows} or {@code batchMaxBytes}, when its
 *       oldest row is {@code flushInterval} old (a processing-time timer on the task thread), and
 *       on every {@link #flush} (checkpoint or end of input), which waits until every batch is
 *       written.
 *   <li>At most {@code maxInFlightBatches} batches wait for the inserter; {@link #write} blocks
 *       beyond that (back-pressure instead of unbounded memory).
 *   <li>Retriable failures (connection refused, timeouts, too many parts, ...: {@link
 *       ClickHouseErrors}) are retried with exponential backoff and jitter up to {@code
 *       maxRetries}; anything else, or retries exhausted, is stored and rethrown by the next {@code
 *       write} or {@code flush}, which fails the job (Flink then restarts it from the last
 *       checkpoint).
 *   <li>With several shards each shard has its own open batch, and a row goes to the one of its
 *       {@link ClickHouseRowEncoder#shardKey} ({@link ShardKeys#shard}), into the shard's local
 *       table ({@link ClusterDdl#writeTable}); a shard's replicas fail over as with one shard.
 * </ul>
 *
 * @param <T> the value type
 */
public final class ClickHouseSinkWriter<T> implements SinkWriter<T> {

    private static final Logger LOG = LoggerFactory.getLogger(ClickHouseSinkWriter.class);

    private final ClickHouseSinkOptions options;
    private final ClickHouseRowEncoder<T> encoder;
    private final ServerCapabilities caps;
    private final ClickHouseConnection connection;
    private final ClickHouseSinkMetrics metrics;
    private final String table;
    private final List<String> columns;
    private final ExecutorService inserter;
    private final Semaphore slots;
    private final BlockingQueue<RowBinaryOutput> freeBuffers;
    private final AtomicInteger pending = new AtomicInteger();
    private final ProcessingTimeService timers;
    private final boolean useTokens;

    private volatile Throwable failure;
    private final int shards;
    private final RowBinaryOutput[] current;
    private final int[] currentRows;
    private final long[] currentStartMillis;
    private boolean closed;

    private ClickHouseSinkWriter(
            ClickHouseSinkOptions options,
            ClickHouseRowEncoder<T> encoder,
            ClickHouseConnection connection,
            ServerCapabilities caps,
            ProcessingTimeService timers,
            ClickHouseSinkMetrics metrics,
            int subtask) {
        this.options = options;
        this.encoder = encoder;
        this.connection = connection;
        this.caps = caps;
        this.timers = timers;
        this.metrics = metrics;
        this.table = options.database() + "." + connection.clusterDdl().writeTable(encoder.table());
        this.columns = encoder.columns(caps);
        this.useTokens = options.deduplicationTokens() && caps.insertDeduplicationToken();
        this.shards = connection.shards();
        this.current = new RowBinaryOutput[shards];
        this.currentRows = new int[shards];
        this.currentStartMillis = new long[shards];
        int buffers = options.maxInFlightBatches() + shards;
        this.slots = new Semaphore(options.maxInFlightBatches());
        this.freeBuffers = new ArrayBlockingQueue<>(buffers + 1);
        int initial = (int) Math.min(options.batchMaxBytes() + 4096, 8L << 20);
        for (int i = 0; i < buffers; i++) {
            freeBuffers.add(new RowBinaryOutput(initial));
        }
        for (int i = 0; i < shards; i++) {
            current[i] = freeBuffers.poll();
        }
        this.inserter =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t =
                                    new Thread(r, "clickhouse-inserter-" + table + "-" + subtask);
                            t.setDaemon(true);
                            return t;
                        });
        metrics.registerPending(pending::get);
    }

    /**
     * Connects, applies the schema (when {@code options.migrate()}), detects the server's
     * capabilities and returns a writer; closes what it built when any step fails. While the server
     * is unreachable (a job restarted during a ClickHouse outage) these steps are retried with the
     * inserts' backoff for up to {@code options.startupTimeout()}, logging each attempt; a failure
     * that is not retriable (authentication, a bad migration) fails at once.
     *
     * @param schema what must exist before the first insert
     * @param timers the task's processing-time service for interval flushes, or null (size and
     *     explicit flushes only)
     */
    public static <T> ClickHouseSinkWriter<T> open(
            ClickHouseSinkOptions options,
            ClickHouseRowEncoder<T> encoder,
            ClickHouseSchema schema,
            ProcessingTimeService timers,
            ClickHouseSinkMetrics metrics,
            int subtask)
            throws IOException {
        ClickHouseConnection connection = new ClickHouseConnection(options);
        try {
            ServerCapabilities caps =
                    prepare(
                            options,
                            connection,
                            options.migrate() ? schema : null,
                            encoder.table(),
                            metrics);
            ClickHouseSinkWriter<T> writer =
                    new ClickHouseSinkWriter<>(
                            options, encoder, connection, caps, timers, metrics, subtask);
            LOG.info(
                    "clickhouse writer {} opened on server {} (modern types: {}, dedup tokens: {})",
                    writer.table,
                    caps.version(),
                    caps.isModern(),
                    writer.useTokens);
            writer.scheduleIntervalFlush();
            return writer;
        } catch (IOException | RuntimeException e) {
            ClickHouseConnection.closeQuietly(connection);
            throw e;
        }
    }

    /** The schema or feature detection, retried with backoff while the server is unreachable. */
    private static ServerCapabilities prepare(
            ClickHouseSinkOptions options,
            ClickHouseConnection connection,
            ClickHouseSchema schema,
            String table,
            ClickHouseSinkMetrics metrics)
            throws IOException {
        long start = System.nanoTime();
        long budget = options.startupTimeout().toMillis();
        long backoff = Math.max(1L, options.initialBackoff().toMillis());
        for (int attempt = 1; ; attempt++) {
            try {
                ServerCapabilities caps =
                        schema != null
                                ? schema.apply(connection, options.database())
                                : ClickHouseMigrator.detect(connection);
                if (attempt > 1) {
                    LOG.info(
                            "clickhouse at {} reachable again: writer of {} starts after {}"
                                    + " attempts",
                            options.url(),
                            table,
                            attempt);
                }
                return caps;
            } catch (ClickHouseSinkException e) {
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                if (!e.isRetriable()) {
                    throw e;
                }
                if (waited >= budget) {
                    throw new ClickHouseSinkException(
                            "clickhouse at "
                                    + options.url()
                                    + " unreachable when the writer of "
                                    + table
                                    + " opened: gave up after "
                                    + attempt
                                    + " attempt(s) in "
                                    + waited
                                    + " ms (startupTimeout "
                                    + options.startupTimeout()
                                    + "): "
                                    + e.getMessage(),
                            e,
                            e.serverCode(),
                            false);
                }
                long sleep =
                        Math.min(
                                budget - waited,
                                backoff / 2
                                        + ThreadLocalRandom.current().nextLong(backoff / 2 + 1));
                LOG.warn(
                        "clickhouse at {} unreachable when the writer of {} opened (attempt {},"
                                + " {} ms of startupTimeout {}): {}; retrying in {} ms",
                        options.url(),
                        table,
                        attempt,
                        waited,
                        options.startupTimeout(),
                        e.getMessage(),
                        sleep);
                metrics.retried();
                try {
                    Thread.sleep(Math.max(1L, sleep));
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    InterruptedIOException iio =
                            new InterruptedIOException(
                                    "interrupted while waiting for clickhouse at " + options.url());
                    iio.initCause(e);
                    throw iio;
                }
                backoff = Math.min(backoff * 2, Math.max(1L, options.maxBackoff().toMillis()));
            }
        }
    }

    public ServerCapabilities capabilities() {
        return caps;
    }

    @Override
    public void write(T element, Context context) throws IOException, InterruptedException {
        checkFailure();
        int shard = shards == 1 ? 0 : ShardKeys.shard(encoder.shardKey(element), shards);
        if (currentRows[shard] == 0) {
            currentStartMillis[shard] = System.currentTimeMillis();
        }
        RowBinaryOutput batch = current[shard];
        encoder.encode(element, batch, caps);
        currentRows[shard]++;
        if (currentRows[shard] >= options.batchMaxRows()
                || batch.size() >= options.batchMaxBytes()) {
            submitCurrent(shard);
        }
    }

    /** Sends the open batch and waits until every batch is written; rethrows a stored failure. */
    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        checkFailure();
        for (int shard = 0; shard < shards; shard++) {
            submitCurrent(shard);
        }
        int all = options.maxInFlightBatches();
        slots.acquire(all);
        slots.release(all);
        checkFailure();
    }

    private void scheduleIntervalFlush() {
        if (timers == null || options.flushInterval().isZero()) {
            return;
        }
        long at = timers.getCurrentProcessingTime() + options.flushInterval().toMillis();
        timers.registerTimer(at, this::onTimer);
    }

    private void onTimer(long timestamp) throws IOException, InterruptedException {
        if (closed) {
            return;
        }
        for (int shard = 0; shard < shards; shard++) {
            if (currentRows[shard] > 0
                    && System.currentTimeMillis() - currentStartMillis[shard]
                            >= options.flushInterval().toMillis()) {
                checkFailure();
                submitCurrent(shard);
            }
        }
        scheduleIntervalFlush();
    }

    private void submitCurrent(int shard) throws InterruptedException {
        if (currentRows[shard] == 0) {
            return;
        }
        slots.acquire();
        RowBinaryOutput batch = current[shard];
        int rows = currentRows[shard];
        RowBinaryOutput next = freeBuffers.poll();
        current[shard] = next != null ? next : new RowBinaryOutput(batch.size());
        currentRows[shard] = 0;
        pending.incrementAndGet();
        try {
            inserter.execute(() -> insertWithRetries(shard, batch, rows));
        } catch (RuntimeException e) {
            pending.decrementAndGet();
            slots.release();
            throw e;
        }
    }

    private void insertWithRetries(int shard, RowBinaryOutput batch, int rows) {
        try {
            if (failure != null) {
                // The job is failing already; do not write past the failed batch.
                return;
            }
            InsertSettings settings = new InsertSettings();
            if (useTokens) {
                settings.setDeduplicationToken(contentToken(batch));
            }
            long backoff = Math.max(1L, options.initialBackoff().toMillis());
            for (int attempt = 0; ; attempt++) {
                long start = System.nanoTime();
                try {
                    connection.insertRowBinary(
                            shard, table, columns, batch.asInputStream(), settings);
                    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    metrics.batchWritten(rows, batch.size(), ms);
                    return;
                } catch (ClickHouseSinkException e) {
                    if (!e.isRetriable() || attempt >= options.maxRetries() || closed) {
                        metrics.batchFailed(rows);
                        failure =
                                new ClickHouseSinkException(
                                        "insert of "
                                                + rows
                                                + " rows into "
                                                + table
                                                + " failed after "
                                                + (attempt + 1)
                                                + " attempt(s)"
                                                + (e.isRetriable() ? "" : " (not retriable)")
                                                + ": "
                                                + e.getMessage(),
                                        e,
                                        e.serverCode(),
                                        false);
                        return;
                    }
                    metrics.retried();
                    long sleep =
                            backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
                    LOG.warn(
                            "insert of {} rows into {} failed (attempt {} of {}), retrying in {}"
                                    + " ms: {}",
                            rows,
                            table,
                            attempt + 1,
                            options.maxRetries() + 1,
                            sleep,
                            e.getMessage());
                    Thread.sleep(sleep);
                    backoff = Math.min(backoff * 2, Math.max(1L, options.maxBackoff().toMillis()));
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (failure == null) {
                failure = new ClickHouseSinkException("insert into " + table + " interrupted");
            }
        } catch (RuntimeException | Error e) {
            metrics.batchFailed(rows);
            failure = e;
        } finally {
            batch.reset();
            freeBuffers.offer(batch);
            pending.decrementAndGet();
            slots.release();
        }
    }

    /** SHA-256 of the batch bytes: a retry of the same batch carries the same token. */
    static String contentToken(RowBinaryOutput batch) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            byte[] all = batch.toByteArray();
            d.update(all);
            return "flowhouse-" + HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private void checkFailure() throws IOException {
        Throwable f = failure;
        if (f == null) {
            return;
        }
        if (f instanceof IOException io) {
            throw new ClickHouseSinkException(io.getMessage(), io, -1, false);
        }
        throw new ClickHouseSinkException("clickhouse inserter failed: " + f, f, -1, false);
    }

    /** Rows in the open batch (not yet handed to the inserter). */
    public int bufferedRows() {
        int rows = 0;
        for (int r : currentRows) {
            rows += r;
        }
        return rows;
    }

    /**
     * Stops the inserter; rows not flushed are dropped (Flink flushes before a clean close, and a
     * failed task replays them from the last checkpoint).
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        inserter.shutdown();
        try {
            if (!inserter.awaitTermination(
                    options.socketTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                inserter.shutdownNow();
            }
        } catch (InterruptedException e) {
            inserter.shutdownNow();
            Thread.currentThread().interrupt();
        } finally {
            connection.close();
        }
    }
}
