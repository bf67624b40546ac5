// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import io.flowhouse.sinks.FlowInput;
import java.io.IOException;
import java.time.Duration;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subtask's writer: owns a {@link ZmqPublisher} and reports its counters as Flink metrics under
 * the {@code zmq} group ({@code flows_sent}, {@code flows_dropped}, {@code messages_sent}, {@code
 * bytes_sent}, {@code events_sent}, {@code subscriptions}, {@code queue_depth}, {@code
 * curve_clients_accepted}, {@code curve_clients_refused}, {@code interface_messages_sent}, {@code
 * interfaces_refused}, {@code interfaces_cut}), which the Prometheus reporter exposes as {@code
 * flink_taskmanager_job_task_operator_zmq_*}.
 */
final class ZmqSinkWriter<T> implements SinkWriter<T> {

    /** How long a checkpoint flush may wait for the socket. */
    private static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(60);

    /** In drop mode a checkpoint waits this long for the socket, then goes on. */
    private static final Duration DROP_MODE_FLUSH_WAIT = Duration.ofSeconds(2);

    private static final Logger LOG = LoggerFactory.getLogger(ZmqSinkWriter.class);

    private final ZmqSinkOptions.Overflow overflow;

    private final ZmqPublisher publisher;
    private final FlowInput<T> input;
    private final Counter recordsSend;
    private final Counter recordsSendErrors;

    ZmqSinkWriter(
            ZmqSinkOptions options, FlowInput<T> input, int subtask, SinkWriterMetricGroup metrics)
            throws IOException {
        this.input = input;
        this.publisher = new ZmqPublisher(options, options.sourceId() + subtask);
        this.overflow = options.overflow();
        this.recordsSend = metrics.getNumRecordsSendCounter();
        this.recordsSendErrors = metrics.getNumRecordsSendErrorsCounter();
        MetricGroup g = metrics.addGroup("zmq");
        g.gauge("flows_sent", () -> publisher.metrics().flowsSent());
        g.gauge("flows_dropped", () -> publisher.metrics().flowsDropped());
        g.gauge("messages_sent", () -> publisher.metrics().messagesSent());
        g.gauge("bytes_sent", () -> publisher.metrics().bytesSent());
        g.gauge("events_sent", () -> publisher.metrics().eventsSent());
        g.gauge("subscriptions", () -> publisher.metrics().subscriptions());
        g.gauge("queue_depth", () -> publisher.metrics().queueDepth());
        g.gauge("curve_clients_accepted", () -> publisher.metrics().curveAccepted());
        g.gauge("curve_clients_refused", () -> publisher.metrics().curveRefused());
        g.gauge("interface_messages_sent", () -> publisher.metrics().interfaceMessagesSent());
        g.gauge("interfaces_refused", () -> publisher.metrics().interfacesRefused());
        g.gauge("interfaces_cut", () -> publisher.metrics().interfacesCut());
    }

    @Override
    public void write(T element, Context context) throws IOException, InterruptedException {
        if (publisher.publish(input.flow(element), input.context(element))) {
            recordsSend.inc();
        } else {
            recordsSendErrors.inc();
        }
    }

    @Override
    public void flush(boolean endOfInput) throws IOException, InterruptedException {
        if (overflow == ZmqSinkOptions.Overflow.BLOCK) {
            // Back-pressure mode: a checkpoint completes only once every flow is on the socket.
            publisher.flush(FLUSH_TIMEOUT);
            return;
        }
        // Drop mode: a stalled ntopng must not fail checkpoints (and so the ClickHouse path);
        // what it cannot take stays queued or is counted as dropped.
        try {
            publisher.flush(DROP_MODE_FLUSH_WAIT);
        } catch (IOException e) {
            if (publisher.failed()) {
                throw e;
            }
            LOG.warn("zmq flush incomplete, subscriber slow: {}", e.getMessage());
        }
    }

    @Override
    public void close() {
        publisher.close();
    }
}
