// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.MetricGroup;

/**
 * The decode state of every exporter key of one parallel instance, in bytes as counted by their
 * {@link ExporterBudget}s: what {@code flowhouse.decode.state.max-bytes} bounds. Kept on the heap,
 * changed with every reservation, and rebuilt from the keys' footprints when the operator opens
 * ({@link DecodeOperator}), so it is exact after a restore and a rescale.
 */
final class DecodeStateLedger {

    private final long maxBytes;
    private long bytes;
    private long exporters;

    DecodeStateLedger(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    /** Publishes {@code state_bytes} and {@code state_exporters} under {@code group}. */
    void register(MetricGroup group) {
        group.gauge("state_bytes", (Gauge<Long>) () -> bytes);
        group.gauge("state_exporters", (Gauge<Long>) () -> exporters);
    }

    /** Takes {@code n} bytes if the bound allows. */
    boolean tryReserve(long n) {
        if (n > 0 && bytes + n > maxBytes) {
            return false;
        }
        bytes += n;
        return true;
    }

    /** Whether {@code n} bytes would fit once {@code freeable} are given back. */
    boolean fits(long n, long freeable) {
        return bytes - freeable + n <= maxBytes;
    }

    void release(long n) {
        bytes = Math.max(0, bytes - n);
    }

    void exporterAdded() {
        exporters++;
    }

    void exporterRemoved() {
        exporters = Math.max(0, exporters - 1);
    }

    /** Counts a key found in restored state. */
    void restored(long keyBytes) {
        bytes += keyBytes;
        exporters++;
    }

    long bytes() {
        return bytes;
    }

    long exporters() {
        return exporters;
    }
}
