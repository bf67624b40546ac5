// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import io.flowhouse.codec.flow.FlowRecord;
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
 */
public final class ZmqSink implements Sink<FlowRecord> {

    private static final long serialVersionUID = 1L;

    private final ZmqSinkOptions options;

    public ZmqSink(ZmqSinkOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    public ZmqSinkOptions options() {
        return options;
    }

    @Override
    public SinkWriter<FlowRecord> createWriter(WriterInitContext context) throws IOException {
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
        return new ZmqSinkWriter(options, subtask, context.metricGroup());
    }
}
