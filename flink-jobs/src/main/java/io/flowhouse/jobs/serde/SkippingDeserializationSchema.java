// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.metrics.Counter;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kafka value reader that skips what it cannot parse: each skipped record is counted in {@code
 * flowhouse_<metric>} and logged at most once a minute, so a stream of bad records can neither stop
 * the job nor flood the log.
 */
public abstract class SkippingDeserializationSchema<T>
        implements KafkaRecordDeserializationSchema<T> {

    private static final Logger LOG = LoggerFactory.getLogger(SkippingDeserializationSchema.class);
    private static final long LOG_INTERVAL_MILLIS = 60_000L;

    private final String metric;
    private final String what;
    private transient Counter skipped;
    private transient long lastLogMillis;

    /**
     * @param metric the counter's name in the {@code flowhouse} metric group
     * @param what what one record is, for the log line ("packet batch", "envelope")
     */
    protected SkippingDeserializationSchema(String metric, String what) {
        this.metric = metric;
        this.what = what;
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        skipped = context.getMetricGroup().addGroup("flowhouse").counter(metric);
    }

    /** Counts the record as skipped and logs why, rate-limited. */
    protected final void skip(ConsumerRecord<byte[], byte[]> record, Exception cause) {
        if (skipped != null) {
            skipped.inc();
        }
        long now = System.currentTimeMillis();
        if (now - lastLogMillis >= LOG_INTERVAL_MILLIS) {
            lastLogMillis = now;
            LOG.warn(
                    "skipping malformed {} at {}-{} offset {}: {}",
                    what,
                    record.topic(),
                    record.partition(),
                    record.offset(),
                    cause.getMessage());
        }
    }
}
