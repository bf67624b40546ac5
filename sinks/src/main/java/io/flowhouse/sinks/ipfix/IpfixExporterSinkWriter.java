// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import io.flowhouse.sinks.FlowInput;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;

/**
 * One subtask's writer: one {@link QueuedIpfixExporter} per target, so {@link #write} only queues
 * and never waits for a collector. Metrics under {@code ipfix} with a {@code target} label: {@code
 * records_sent}, {@code records_dropped}, {@code messages_sent}, {@code bytes_sent}, {@code
 * send_errors}, {@code reconnects}, {@code write_timeouts}, {@code domains}, {@code
 * domains_evicted}, {@code interface_names_cut}, {@code interfaces_forgotten}, {@code queue_depth},
 * {@code queue_dropped} (flows).
 */
final class IpfixExporterSinkWriter<T> implements SinkWriter<T> {

    /** A checkpoint waits at most this long for the senders, then goes on (at-most-once). */
    private static final Duration FLUSH_WAIT = Duration.ofSeconds(2);

    /** At the end, queued flows get this long to go out before they are dropped and counted. */
    private static final Duration CLOSE_BUDGET = Duration.ofSeconds(10);

    private final List<QueuedIpfixExporter<T>> exporters = new ArrayList<>();

    IpfixExporterSinkWriter(
            IpfixExporterOptions options, FlowInput<T> input, SinkWriterMetricGroup metrics)
            throws IOException {
        try {
            for (IpfixExporterOptions.Target t : options.targets()) {
                QueuedIpfixExporter<T> e = new QueuedIpfixExporter<>(t, options, input);
                exporters.add(e);
                MetricGroup g = metrics.addGroup("ipfix").addGroup("target", t.toString());
                gauge(g, "records_sent", e, IpfixExporter.Metrics::recordsSent);
                gauge(g, "records_dropped", e, IpfixExporter.Metrics::recordsDropped);
                gauge(g, "messages_sent", e, IpfixExporter.Metrics::messagesSent);
                gauge(g, "bytes_sent", e, IpfixExporter.Metrics::bytesSent);
                gauge(g, "send_errors", e, IpfixExporter.Metrics::sendErrors);
                gauge(g, "reconnects", e, IpfixExporter.Metrics::reconnects);
                gauge(g, "write_timeouts", e, IpfixExporter.Metrics::writeTimeouts);
                gauge(g, "domains", e, IpfixExporter.Metrics::domains);
                gauge(g, "domains_evicted", e, IpfixExporter.Metrics::domainsEvicted);
                gauge(g, "interface_names_cut", e, IpfixExporter.Metrics::interfaceNamesCut);
                gauge(g, "interfaces_forgotten", e, IpfixExporter.Metrics::interfacesForgotten);
                g.gauge("queue_depth", () -> e.queueMetrics().queueDepth());
                g.gauge("queue_dropped", () -> e.queueMetrics().queueDropped());
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private static void gauge(
            MetricGroup g,
            String name,
            QueuedIpfixExporter<?> e,
            ToLongFunction<IpfixExporter.Metrics> value) {
        g.gauge(name, () -> value.applyAsLong(e.metrics()));
    }

    @Override
    public void write(T element, Context context) {
        for (QueuedIpfixExporter<T> e : exporters) {
            e.offer(element);
        }
    }

    @Override
    public void flush(boolean endOfInput) throws InterruptedException {
        long deadline = System.nanoTime() + FLUSH_WAIT.toNanos();
        for (QueuedIpfixExporter<T> e : exporters) {
            e.flush(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
    }

    @Override
    public void close() {
        exporters.forEach(QueuedIpfixExporter::startClosing);
        long deadline = System.nanoTime() + CLOSE_BUDGET.toNanos();
        for (QueuedIpfixExporter<T> e : exporters) {
            e.close(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        }
    }
}
