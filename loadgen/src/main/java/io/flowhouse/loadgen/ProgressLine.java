// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen;

import io.flowhouse.loadgen.emit.DatagramEmitter;
import java.io.PrintStream;
import java.util.Locale;

/**
 * The live progress line on stderr: rate achieved over the last interval, totals sent, errors. On a
 * terminal it rewrites one line; otherwise it prints one line per update.
 */
final class ProgressLine {
    private final PrintStream err;
    private final DatagramEmitter.Unit unit;
    private final double target;
    private final boolean terminal;
    private long lastNanos;
    private long lastUnits;
    private boolean printed;

    ProgressLine(PrintStream err, DatagramEmitter.Unit unit, double target) {
        this.err = err;
        this.unit = unit;
        this.target = target;
        this.terminal = System.console() != null;
    }

    void update(long elapsedNanos, long units, DatagramEmitter.RunSummaryView v) {
        double dt = (elapsedNanos - lastNanos) / 1e9;
        double rate = dt > 0 ? (units - lastUnits) / dt : 0;
        lastNanos = elapsedNanos;
        lastUnits = units;
        String text =
                String.format(
                        Locale.ROOT,
                        "loadgen %6.1fs  %,12.0f %s/s (target %s)  sent %,d flows %,d datagrams"
                                + "  malformed %,d  errors %,d%s",
                        elapsedNanos / 1e9,
                        rate,
                        unit.label(),
                        target <= 0 ? "max" : String.format(Locale.ROOT, "%,.0f", target),
                        v.flows(),
                        v.datagrams(),
                        v.malformed(),
                        v.errors(),
                        v.shortfall() > 0
                                ? String.format(Locale.ROOT, "  BEHIND by %,d", v.shortfall())
                                : "");
        if (terminal) {
            err.print("\r" + text + "\u001b[K");
        } else {
            err.println(text);
        }
        printed = true;
    }

    void finish() {
        if (terminal && printed) {
            err.println();
        }
    }
}
