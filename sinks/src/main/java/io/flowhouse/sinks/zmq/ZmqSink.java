// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.FlowInput;
import java.io.IOException;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Flink Sink V2 that publishes flows to ntopng over ZMQ ({@link ZmqPublisher}). At-most-once by
 * nature (ntopng has no acknowledgement); {@code flush} at checkpoints waits until every queued
 * flow is on the socket.
 *
 * <p>In bind mode (e.g. {@code tcp://127.0.0.1:5556}) only one subtask can own the port: run the
 * sink with parallelism 1 (a single publisher sustains over a million flows per second). In
 * collector mode ({@code tcp://ntopng:5556c}) every subtask connects with source id {@code
 * source-id + subtask index}.
 *
 * <p>With a {@link FlowInput} that gives each flow its context, the flows carry the context's AS
 * numbers and the interface names go out on the {@code snmp-ifaces} topic.
 */
public final class ZmqSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private final ZmqSinkOptions options;
    private final FlowInput<T> input;

    /**
     * @param input takes each element apart into the flow and its context
     */
    public ZmqSink(ZmqSinkOptions options, FlowInput<T> input) {
        this.options = Objects.requireNonNull(options, "options");
        this.input = Objects.requireNonNull(input, "input");
    }

    /** The publisher of decoded flows, without context. */
    public static ZmqSink<FlowRecord> of(ZmqSinkOptions options) {
        return new ZmqSink<>(options, FlowInput.FLOWS);
    }

    /** The same publisher for elements that {@code in} takes apart. */
    public <U> ZmqSink<U> withInput(FlowInput<U> in) {
        return new ZmqSink<>(options, in);
    }

    public ZmqSinkOptions options() {
        return options;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        int subtask = context.getTaskInfo().getIndexOfThisSubtask();
        int parallelism = context.getTaskInfo().getNumberOfParallelSubtasks();
        if (!options.connectMode() && parallelism > 1) {
            throw new IllegalStateException(
                    "zmq sink in bind mode ("
                            + options.endpoint()
                            + ") runs with parallelism "
                            + parallelism
                            + " (expected: 1, or collector mode with a trailing 'c')");
        }
        return new ZmqSinkWriter<>(options, input, subtask, context.metricGroup());
    }
}
