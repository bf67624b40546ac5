// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.jobs.model.ExporterFootprint;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.TimerService;

/**
 * The current exporter key's {@link ExporterFootprint}: read at most once per element, changed in
 * memory while the element is processed, written back once ({@link #commit}). Every byte the key's
 * state grows by is reserved here first, against the per-exporter bound and the instance's {@link
 * DecodeStateLedger}; the footprint is created with the first reservation and removed (with its
 * timers) when the key holds nothing again.
 */
final class ExporterBudget {

    static final ValueStateDescriptor<ExporterFootprint> FOOTPRINT =
            new ValueStateDescriptor<>(
                    "decode-footprint", TypeInformation.of(ExporterFootprint.class));

    private final ValueState<ExporterFootprint> state;
    private final DecodeStateLedger ledger;
    private final long maxBytesPerExporter;
    private final long idleMillis;

    /** Activity is recorded at this granularity, so a busy key is not rewritten per datagram. */
    private final long touchMillis;

    private ExporterFootprint fp;
    private boolean loaded;
    private boolean dirty;
    private boolean created;
    private long now;
    private long received;

    ExporterBudget(
            ValueState<ExporterFootprint> state,
            DecodeStateLedger ledger,
            long maxBytesPerExporter,
            long idleMillis) {
        this.state = state;
        this.ledger = ledger;
        this.maxBytesPerExporter = maxBytesPerExporter;
        this.idleMillis = idleMillis;
        this.touchMillis = Math.max(1, Math.min(1_000L, idleMillis / 16));
    }

    /**
     * Starts one element of the current key at processing time {@code now}; {@code received} is the
     * datagram's receive time ({@code Long.MIN_VALUE} for none).
     */
    void begin(long now, long received) {
        this.now = now;
        this.received = received;
        this.fp = null;
        this.loaded = false;
        this.dirty = false;
        this.created = false;
    }

    long now() {
        return now;
    }

    /** The footprint, or null when the key holds nothing. */
    ExporterFootprint peek() throws Exception {
        if (!loaded) {
            fp = state.value();
            loaded = true;
        }
        return fp;
    }

    /**
     * Records that a datagram arrived (coarsely: the footprint is rewritten about once a second).
     */
    void touch() throws Exception {
        ExporterFootprint f = peek();
        if (f != null
                && (now - f.lastActiveMillis >= touchMillis
                        || (received != Long.MIN_VALUE
                                && (f.lastReceivedMillis == Long.MIN_VALUE
                                        || received - f.lastReceivedMillis >= touchMillis)))) {
            f.lastActiveMillis = Math.max(f.lastActiveMillis, now);
            f.lastReceivedMillis = Math.max(f.lastReceivedMillis, received);
            dirty = true;
        }
    }

    /** The footprint, marked changed; null when the key holds nothing. */
    ExporterFootprint edit() throws Exception {
        ExporterFootprint f = peek();
        if (f != null) {
            dirty = true;
        }
        return f;
    }

    /** Whether {@code n} more bytes fit once {@code freeable} of this key's are given back. */
    boolean fits(long n, long freeable) throws Exception {
        ExporterFootprint f = peek();
        long own = f == null ? ExporterFootprint.OWN_BYTES : 0;
        long current = f == null ? 0 : f.bytes;
        return current - freeable + own + n <= maxBytesPerExporter
                && ledger.fits(own + n, freeable);
    }

    /**
     * Takes {@code n} bytes for the current key if both bounds allow, creating its footprint with
     * the first reservation.
     */
    boolean reserve(long n) throws Exception {
        ExporterFootprint f = peek();
        long own = f == null ? ExporterFootprint.OWN_BYTES : 0;
        long current = f == null ? 0 : f.bytes;
        if (n > 0 && current + own + n > maxBytesPerExporter) {
            return false;
        }
        if (!ledger.tryReserve(own + n)) {
            return false;
        }
        if (f == null) {
            f = new ExporterFootprint();
            f.bytes = ExporterFootprint.OWN_BYTES;
            f.lastActiveMillis = now;
            f.lastReceivedMillis = received;
            fp = f;
            created = true;
            ledger.exporterAdded();
        }
        f.bytes += n;
        dirty = true;
        return true;
    }

    /** Gives back {@code n} bytes of the current key. */
    void release(long n) throws Exception {
        ExporterFootprint f = peek();
        if (f == null || n <= 0) {
            return;
        }
        long given = Math.min(n, f.bytes - ExporterFootprint.OWN_BYTES);
        f.bytes -= given;
        ledger.release(given);
        dirty = true;
    }

    /**
     * Writes the footprint back: removed with its timers when the key holds nothing, else with an
     * idle timer pending.
     */
    void commit(TimerService timers) throws Exception {
        ExporterFootprint f = fp;
        if (f == null) {
            return;
        }
        if (f.empty()) {
            remove(timers);
            return;
        }
        if (f.idleTimer == 0) {
            f.idleTimer = saturatedAdd(f.lastActiveMillis, idleMillis);
            timers.registerProcessingTimeTimer(f.idleTimer);
            dirty = true;
        }
        if (dirty || created) {
            state.update(f);
        }
        dirty = false;
        created = false;
    }

    /**
     * Forgets the key's footprint (its state is gone): bytes back to the ledger, timers deleted.
     */
    void remove(TimerService timers) throws Exception {
        ExporterFootprint f = peek();
        if (f == null) {
            return;
        }
        if (f.idleTimer != 0) {
            timers.deleteProcessingTimeTimer(f.idleTimer);
        }
        if (f.heldTimer != 0) {
            timers.deleteProcessingTimeTimer(f.heldTimer);
        }
        ledger.release(f.bytes);
        ledger.exporterRemoved();
        state.clear();
        fp = null;
        dirty = false;
        created = false;
    }

    /** Whether the key has been idle for the idle timeout at {@code now}. */
    boolean idle() throws Exception {
        ExporterFootprint f = peek();
        return f != null && now >= saturatedAdd(f.lastActiveMillis, idleMillis);
    }

    private static long saturatedAdd(long a, long b) {
        return a > Long.MAX_VALUE - b ? Long.MAX_VALUE : a + b;
    }
}
