// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import io.flowhouse.codec.flow.FlowRecord;
import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Flink Sink V2 that re-exports flows as IPFIX to every configured collector ({@link
 * IpfixExporter}, one per target and subtask). At-most-once, as IPFIX over UDP is: collector
 * outages are counted ({@code ipfix.records_dropped}), never fail the job. Each subtask is its own
 * transport session (its own source port), with its own templates and sequence numbers.
 */
public final class IpfixExporterSink implements Sink<FlowRecord> {

    private static final long serialVersionUID = 1L;

    private final IpfixExporterOptions options;

    public IpfixExporterSink(IpfixExporterOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    public IpfixExporterOptions options() {
        return options;
    }

    @Override
    public SinkWriter<FlowRecord> createWriter(WriterInitContext context) throws IOException {
        return new IpfixExporterSinkWriter(options, context.metricGroup());
    }
}
