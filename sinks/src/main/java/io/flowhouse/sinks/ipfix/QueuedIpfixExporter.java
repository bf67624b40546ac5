// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.FlowInput;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A bounded queue and one sender thread in front of an {@link IpfixExporter}: {@link #offer} never
 * waits, so a collector that is slow, unreachable or stops reading costs dropped and counted flows,
 * never a stalled Flink task. The sender thread owns the exporter: it encodes, sends, paces, and
 * runs the exporter's timer work (linger, template refresh, reconnects).
 *
 * <p>Accounting: {@code offered = queued + queueDropped}; every queued flow ends up in the
 * exporter's {@code flowsIn} or, if the queue is abandoned at close, in {@code queueDropped}.
 */
public final class QueuedIpfixExporter<T> implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(QueuedIpfixExporter.class);

    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final int DRAIN_CHUNK = 1024;

    /**
     * Counters of the queue (the exporter's own are in {@link IpfixExporter.Metrics}).
     *
     * @param offered flows given to {@link #offer}
     * @param queueDropped flows dropped because the queue was full, or left in it at close
     * @param queueDepth flows waiting for the sender thread
     */
    public record QueueMetrics(long offered, long queueDropped, int queueDepth) {}

    private final IpfixExporter exporter;
    private final FlowInput<T> input;
    private final ArrayBlockingQueue<T> queue;
    private final Thread thread;
    private final Object progress = new Object();
    private final AtomicLong offered = new AtomicLong();
    private final AtomicLong queued = new AtomicLong();
    private final AtomicLong queueDropped = new AtomicLong();
    private final AtomicLong handled = new AtomicLong();

    private volatile boolean closing;
    private volatile boolean abort;
    private volatile long flushRequested;
    private volatile long flushed;

    /** Opens the exporter of decoded flows to {@code target} and starts the sender thread. */
    public static QueuedIpfixExporter<FlowRecord> of(
            IpfixExporterOptions.Target target, IpfixExporterOptions options) throws IOException {
        return new QueuedIpfixExporter<>(target, options, FlowInput.FLOWS);
    }

    /**
     * Opens the exporter to {@code target} and starts the sender thread; {@code input} takes each
     * element apart into the flow and its context.
     */
    public QueuedIpfixExporter(
            IpfixExporterOptions.Target target, IpfixExporterOptions options, FlowInput<T> input)
            throws IOException {
        this.input = input;
        this.exporter = new IpfixExporter(target, options, InstantSource.system(), false);
        this.queue = new ArrayBlockingQueue<>(options.queueCapacity());
        this.thread = new Thread(this::run, "flowhouse-ipfix-" + target);
        thread.setDaemon(true);
        thread.start();
    }

    public IpfixExporterOptions.Target target() {
        return exporter.target();
    }

    /** Queues one flow, or drops and counts it when the queue is full; never waits. */
    public boolean offer(T flow) {
        offered.incrementAndGet();
        if (closing || !queue.offer(flow)) {
            queueDropped.incrementAndGet();
            return false;
        }
        queued.incrementAndGet();
        return true;
    }

    /**
     * Asks the sender thread to send everything queued so far, partly filled messages included, and
     * waits for it at most {@code timeout}.
     *
     * @return true when it was done within the timeout
     */
    public boolean flush(Duration timeout) throws InterruptedException {
        long target = queued.get();
        long ticket;
        synchronized (progress) {
            ticket = ++flushRequested;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (progress) {
            while ((handled.get() < target || flushed < ticket) && thread.isAlive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                progress.wait(Math.max(1, Math.min(20, TimeUnit.NANOSECONDS.toMillis(left))));
            }
        }
        return handled.get() >= target;
    }

    /** The exporter's counters. */
    public IpfixExporter.Metrics metrics() {
        return exporter.metrics();
    }

    /** The queue's counters. */
    public QueueMetrics queueMetrics() {
        return new QueueMetrics(offered.get(), queueDropped.get(), queue.size());
    }

    /**
     * Sends what is queued for at most {@code budget}, then gives up on a collector that is not
     * reading (the message in flight and what is left in the queue are dropped and counted), and
     * closes the socket.
     */
    public void close(Duration budget) {
        startClosing();
        try {
            thread.join(Math.max(1, budget.toMillis()));
            if (thread.isAlive()) {
                abort = true;
                exporter.abortSend();
                thread.join(5_000);
            }
        } catch (InterruptedException e) {
            abort = true;
            exporter.abortSend();
            Thread.currentThread().interrupt();
        }
        int left = queue.size();
        if (left > 0) {
            queue.clear();
            queueDropped.addAndGet(left);
        }
        exporter.close(!abort);
    }

    /**
     * Stops taking flows and lets the sender drain; {@link #close(Duration)} then waits. Lets an
     * owner of several start them all before waiting for any.
     */
    public void startClosing() {
        closing = true;
    }

    @Override
    public void close() {
        close(Duration.ofSeconds(5));
    }

    private void run() {
        List<T> chunk = new ArrayList<>(DRAIN_CHUNK);
        long nextTick = System.nanoTime() + TICK_NANOS;
        try {
            while (!abort) {
                long wait = Math.max(0, nextTick - System.nanoTime());
                T first = wait > 0 ? queue.poll(wait, TimeUnit.NANOSECONDS) : queue.poll();
                if (first != null) {
                    chunk.add(first);
                    queue.drainTo(chunk, DRAIN_CHUNK - 1);
                    int done = 0;
                    try {
                        for (T f : chunk) {
                            if (abort) {
                                break;
                            }
                            exporter.export(input.flow(f), input.context(f));
                            done++;
                            handled.incrementAndGet();
                        }
                    } finally {
                        // Taken off the queue but never given to the exporter: dropped.
                        if (done < chunk.size()) {
                            queueDropped.addAndGet(chunk.size() - done);
                        }
                        chunk.clear();
                    }
                }
                long now = System.nanoTime();
                if (now - nextTick >= 0) {
                    exporter.tick();
                    nextTick = now + TICK_NANOS;
                }
                long ticket = flushRequested;
                boolean empty = queue.isEmpty();
                if (empty && (flushed < ticket || closing)) {
                    exporter.flush();
                    signal(ticket);
                    if (closing) {
                        break;
                    }
                } else if (first != null) {
                    signal(flushed);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            LOG.error("ipfix sender for {} failed; its flows are dropped", target(), e);
        } finally {
            synchronized (progress) {
                progress.notifyAll();
            }
        }
    }

    private void signal(long ticket) {
        synchronized (progress) {
            flushed = Math.max(flushed, ticket);
            progress.notifyAll();
        }
    }
}
