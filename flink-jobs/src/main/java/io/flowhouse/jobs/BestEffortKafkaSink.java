// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import java.io.IOException;
import java.io.Serializable;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.MetricGroup;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka sink for a best-effort side output (the template archive): at least once when Kafka takes
 * the records (every checkpoint waits for what was sent before it), and when it does not (a record
 * over the broker's size limit, a topic that is gone, a timeout) the record is skipped, counted in
 * {@code flowhouse_<name>_failed_total} and logged at most once a minute, instead of failing the
 * task, which would fail again on every replay of the same input. Flink's {@code KafkaSink} fails
 * the task on any send error, so this writer drives a plain {@link KafkaProducer}.
 */
public final class BestEffortKafkaSink<T> implements Sink<T> {

    private static final long serialVersionUID = 1L;

    private static final Logger LOG = LoggerFactory.getLogger(BestEffortKafkaSink.class);
    private static final long LOG_INTERVAL_MILLIS = 60_000L;

    /** Turns one value into one Kafka record. */
    @FunctionalInterface
    public interface Records<T> extends Serializable {
        ProducerRecord<byte[], byte[]> record(T value);
    }

    /** The producer's settings: the sink's own, then the client properties (which win). */
    private final Properties kafkaProducerConfig;

    private final Records<T> records;
    private final String name;

    /**
     * @param clientProperties Kafka client settings (TLS, SASL, ...); they win over the sink's own
     * @param name the metric name stem and client id stem ({@code templates_archive})
     */
    public BestEffortKafkaSink(
            String bootstrapServers, Properties clientProperties, Records<T> records, String name) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        // In order (an end must not overtake the template it ends), and without idempotence: an
        // idempotent producer that loses one record (too large for the broker) bumps its epoch and
        // fails the records in flight beside it. A duplicate is harmless on a compacted topic.
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.putAll(clientProperties);
        this.kafkaProducerConfig = p;
        this.records = records;
        this.name = name;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        Properties p = new Properties();
        p.putAll(kafkaProducerConfig);
        p.put(
                ProducerConfig.CLIENT_ID_CONFIG,
                "flowhouse-" + name + "-" + context.getTaskInfo().getIndexOfThisSubtask());
        MetricGroup g = context.metricGroup().addGroup("flowhouse");
        return new Writer<>(
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer()),
                records,
                name,
                g.counter(name + "_sent_total", new AtomicCounter()),
                g.counter(name + "_failed_total", new AtomicCounter()));
    }

    /** A counter the producer's I/O thread may increment. */
    static final class AtomicCounter implements Counter {
        private final AtomicLong n = new AtomicLong();

        @Override
        public void inc() {
            n.incrementAndGet();
        }

        @Override
        public void inc(long by) {
            n.addAndGet(by);
        }

        @Override
        public void dec() {
            n.decrementAndGet();
        }

        @Override
        public void dec(long by) {
            n.addAndGet(-by);
        }

        @Override
        public long getCount() {
            return n.get();
        }
    }

    static final class Writer<T> implements SinkWriter<T> {
        private final KafkaProducer<byte[], byte[]> producer;
        private final Records<T> records;
        private final String name;
        private final Counter sent;
        private final Counter failed;
        private final AtomicLong lastLogMillis = new AtomicLong(Long.MIN_VALUE);

        Writer(
                KafkaProducer<byte[], byte[]> producer,
                Records<T> records,
                String name,
                Counter sent,
                Counter failed) {
            this.producer = producer;
            this.records = records;
            this.name = name;
            this.sent = sent;
            this.failed = failed;
        }

        @Override
        public void write(T value, Context context) {
            ProducerRecord<byte[], byte[]> r = records.record(value);
            try {
                producer.send(
                        r,
                        (metadata, e) -> {
                            if (e == null) {
                                sent.inc();
                            } else {
                                failed(r, e);
                            }
                        });
            } catch (KafkaException | IllegalStateException e) {
                failed(r, e);
            }
        }

        private void failed(ProducerRecord<byte[], byte[]> r, Exception e) {
            failed.inc();
            long now = System.currentTimeMillis();
            long last = lastLogMillis.get();
            if (now - last >= LOG_INTERVAL_MILLIS && lastLogMillis.compareAndSet(last, now)) {
                LOG.warn(
                        "{}: could not write a record of {} bytes to {}, skipped ({} so far): {}",
                        name,
                        r.value() == null ? 0 : r.value().length,
                        r.topic(),
                        failed.getCount(),
                        e.toString());
            }
        }

        /** Waits for every record sent so far (before a checkpoint): sent or counted as failed. */
        @Override
        public void flush(boolean endOfInput) {
            producer.flush();
        }

        @Override
        public void close() {
            producer.close(Duration.ofSeconds(5));
        }
    }
}
