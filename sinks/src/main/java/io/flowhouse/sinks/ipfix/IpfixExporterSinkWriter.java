// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import io.flowhouse.codec.flow.FlowRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToLongFunction;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;

/**
 * One subtask's writer: one {@link IpfixExporter} per target. Metrics under {@code ipfix} with a
 * {@code target} label: {@code records_sent}, {@code records_dropped}, {@code messages_sent},
 * {@code bytes_sent}, {@code send_errors}, {@code reconnects}.
 */
final class IpfixExporterSinkWriter implements SinkWriter<FlowRecord> {

    private final List<IpfixExporter> exporters = new ArrayList<>();

    IpfixExporterSinkWriter(IpfixExporterOptions options, SinkWriterMetricGroup metrics)
            throws IOException {
        try {
            for (IpfixExporterOptions.Target t : options.targets()) {
                IpfixExporter e = new IpfixExporter(t, options);
                exporters.add(e);
                MetricGroup g = metrics.addGroup("ipfix").addGroup("target", t.toString());
                gauge(g, "records_sent", e, IpfixExporter.Metrics::recordsSent);
                gauge(g, "records_dropped", e, IpfixExporter.Metrics::recordsDropped);
                gauge(g, "messages_sent", e, IpfixExporter.Metrics::messagesSent);
                gauge(g, "bytes_sent", e, IpfixExporter.Metrics::bytesSent);
                gauge(g, "send_errors", e, IpfixExporter.Metrics::sendErrors);
                gauge(g, "reconnects", e, IpfixExporter.Metrics::reconnects);
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private static void gauge(
            MetricGroup g,
            String name,
            IpfixExporter e,
            ToLongFunction<IpfixExporter.Metrics> value) {
        g.gauge(name, () -> value.applyAsLong(e.metrics()));
    }

    @Override
    public void write(FlowRecord element, Context context) throws IOException {
        for (IpfixExporter e : exporters) {
            e.export(element);
        }
    }

    @Override
    public void flush(boolean endOfInput) {
        for (IpfixExporter e : exporters) {
            e.flush();
        }
    }

    @Override
    public void close() {
        for (IpfixExporter e : exporters) {
            e.close();
        }
    }
}
