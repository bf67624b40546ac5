// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Histogram;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.SimpleCounter;
import org.apache.flink.metrics.groups.SinkWriterMetricGroup;
import org.apache.flink.runtime.metrics.DescriptiveStatisticsHistogram;

/**
 * The writer's metrics, under the operator's group {@code clickhouse}: {@code rowsWritten}, {@code
 * bytesWritten}, {@code batchesWritten}, {@code retries}, {@code failedBatches}, {@code
 * pendingBatches} and the {@code insertLatencyMs} histogram; plus Flink's standard {@code
 * numRecordsSend}, {@code numBytesSend}, {@code numRecordsSendErrors} and {@code currentSendTime}.
 * Counters are updated by the one inserter thread only.
 */
public final class ClickHouseSinkMetrics {

    private final Counter rows;
    private final Counter bytes;
    private final Counter batches;
    private final Counter retries;
    private final Counter failed;
    private final Counter recordsSend;
    private final Counter bytesSend;
    private final Counter sendErrors;
    private final Histogram latency;
    private final AtomicLong lastSendTimeMs = new AtomicLong();
    private final MetricGroup pendingGroup;

    public ClickHouseSinkMetrics(SinkWriterMetricGroup group) {
        MetricGroup g = group.addGroup("clickhouse");
        this.rows = g.counter("rowsWritten");
        this.bytes = g.counter("bytesWritten");
        this.batches = g.counter("batchesWritten");
        this.retries = g.counter("retries");
        this.failed = g.counter("failedBatches");
        this.latency = g.histogram("insertLatencyMs", new DescriptiveStatisticsHistogram(1024));
        this.recordsSend = group.getNumRecordsSendCounter();
        this.bytesSend = group.getNumBytesSendCounter();
        this.sendErrors = group.getNumRecordsSendErrorsCounter();
        group.setCurrentSendTimeGauge(lastSendTimeMs::get);
        this.pendingGroup = g;
    }

    /** Detached metrics, for use outside a Flink task (benchmarks, tools). */
    public ClickHouseSinkMetrics() {
        this.rows = new SimpleCounter();
        this.bytes = new SimpleCounter();
        this.batches = new SimpleCounter();
        this.retries = new SimpleCounter();
        this.failed = new SimpleCounter();
        this.recordsSend = new SimpleCounter();
        this.bytesSend = new SimpleCounter();
        this.sendErrors = new SimpleCounter();
        this.latency = new DescriptiveStatisticsHistogram(1024);
        this.pendingGroup = null;
    }

    void registerPending(LongSupplier pending) {
        if (pendingGroup != null) {
            pendingGroup.gauge("pendingBatches", pending::getAsLong);
        }
    }

    void batchWritten(long rowCount, long byteCount, long latencyMs) {
        rows.inc(rowCount);
        bytes.inc(byteCount);
        batches.inc();
        recordsSend.inc(rowCount);
        bytesSend.inc(byteCount);
        latency.update(latencyMs);
        lastSendTimeMs.set(latencyMs);
    }

    void retried() {
        retries.inc();
    }

    void batchFailed(long rowCount) {
        failed.inc();
        sendErrors.inc(rowCount);
    }

    public long rowsWritten() {
        return rows.getCount();
    }

    public long bytesWritten() {
        return bytes.getCount();
    }

    public long batchesWritten() {
        return batches.getCount();
    }

    public long retryCount() {
        return retries.getCount();
    }

    public long failedBatches() {
        return failed.getCount();
    }

    public Histogram insertLatencyMs() {
        return latency;
    }
}
