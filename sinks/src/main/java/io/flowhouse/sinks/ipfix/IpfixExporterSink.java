// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.FlowInput;
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
public final class IpfixExporterSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private final IpfixExporterOptions options;
    private final FlowInput<T> input;

    /**
     * @param input takes each element apart into the flow and its context (the context's AS numbers
     *     and interface names are sent, {@link IpfixExporter})
     */
    public IpfixExporterSink(IpfixExporterOptions options, FlowInput<T> input) {
        this.options = Objects.requireNonNull(options, "options");
        this.input = Objects.requireNonNull(input, "input");
    }

    /** The re-export of decoded flows, without context. */
    public static IpfixExporterSink<FlowRecord> of(IpfixExporterOptions options) {
        return new IpfixExporterSink<>(options, FlowInput.FLOWS);
    }

    /** The same re-export for elements that {@code in} takes apart. */
    public <U> IpfixExporterSink<U> withInput(FlowInput<U> in) {
        return new IpfixExporterSink<>(options, in);
    }

    public IpfixExporterOptions options() {
        return options;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        return new IpfixExporterSinkWriter<>(options, input, context.metricGroup());
    }
}
