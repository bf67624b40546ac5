// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.report;

import io.flowhouse.loadgen.export.CounterTotals;
import java.util.List;
import java.util.Locale;

/**
 * The exact outcome of a loadgen run: totals over all exporters, each exporter's own totals, and
 * whether the target rate was held. A test or the benchmark harness compares what a collector
 * received against {@link #flows()}, {@link #packets()} and {@link #bytes()}.
 *
 * @param target collector address:port, or "" when only writing a pcap
 * @param rateUnit "flows" or "datagrams"
 * @param targetRate requested units per second; 0 = as fast as possible
 * @param elapsedNanos time from the first to the last send
 * @param shortfall units the schedule asked for that could not be sent in time
 * @param exporters per-exporter totals
 */
public record RunSummary(
        String target,
        String rateUnit,
        double targetRate,
        long seed,
        long elapsedNanos,
        long shortfall,
        List<ExporterTotals> exporters) {

    /** The achieved rate may fall at most this far below the target (2 %). */
    public static final double RATE_TOLERANCE = 0.02;

    public RunSummary {
        exporters = exporters.stream().map(ExporterTotals::copy).toList();
    }

    public long datagrams() {
        return exporters.stream().mapToLong(ExporterTotals::datagrams).sum();
    }

    public long flows() {
        return exporters.stream().mapToLong(ExporterTotals::flows).sum();
    }

    public long packets() {
        return exporters.stream().mapToLong(ExporterTotals::packets).sum();
    }

    public long bytes() {
        return exporters.stream().mapToLong(ExporterTotals::bytes).sum();
    }

    /** The sFlow counter samples delivered, summed over all exporters. */
    public CounterTotals counters() {
        CounterTotals t = CounterTotals.NONE;
        for (ExporterTotals e : exporters) {
            t = t.plus(e.counters());
        }
        return t;
    }

    public long wireBytes() {
        return exporters.stream().mapToLong(ExporterTotals::wireBytes).sum();
    }

    public long templateRecords() {
        return exporters.stream().mapToLong(ExporterTotals::templateRecords).sum();
    }

    public long optionsRecords() {
        return exporters.stream().mapToLong(ExporterTotals::optionsRecords).sum();
    }

    public long malformed() {
        return exporters.stream().mapToLong(ExporterTotals::malformed).sum();
    }

    public long sendErrors() {
        return exporters.stream().mapToLong(ExporterTotals::sendErrors).sum();
    }

    public long gaps() {
        return exporters.stream().mapToLong(ExporterTotals::gaps).sum();
    }

    /** Units actually delivered (flows or datagrams incl. malformed, as the rate counts them). */
    public long units() {
        return "flows".equals(rateUnit) ? flows() : datagrams() + malformed();
    }

    public double elapsedSeconds() {
        return elapsedNanos / 1e9;
    }

    public double achievedRate() {
        double s = elapsedSeconds();
        return s > 0 ? units() / s : 0.0;
    }

    /**
     * True when the run kept up: nothing was written off the schedule and the achieved rate is
     * within {@link #RATE_TOLERANCE} of the target (always true for unlimited runs).
     */
    public boolean rateHeld() {
        if (targetRate <= 0) {
            return true;
        }
        return shortfall == 0 || achievedRate() >= targetRate * (1 - RATE_TOLERANCE);
    }

    /** Human-readable summary, several lines. */
    public String format() {
        StringBuilder sb = new StringBuilder(512);
        sb.append(
                String.format(
                        Locale.ROOT,
                        "loadgen summary: %d exporters -> %s, %.3f s, seed %d%n",
                        exporters.size(),
                        target.isEmpty() ? "(pcap only)" : target,
                        elapsedSeconds(),
                        seed));
        sb.append(
                String.format(
                        Locale.ROOT,
                        "  flows %d  packets %d  bytes %d  datagrams %d  wire bytes %d%n",
                        flows(),
                        packets(),
                        bytes(),
                        datagrams(),
                        wireBytes()));
        sb.append(
                String.format(
                        Locale.ROOT,
                        "  templates %d  options %d  malformed %d  gaps %d  send errors %d%n",
                        templateRecords(),
                        optionsRecords(),
                        malformed(),
                        gaps(),
                        sendErrors()));
        CounterTotals c = counters();
        if (c.samples() > 0) {
            sb.append(
                    String.format(
                            Locale.ROOT,
                            "  counter samples %d  sum in octets %d  sum out octets %d"
                                    + "  sum in packets %d  sum out packets %d%n",
                            c.samples(),
                            c.inOctets(),
                            c.outOctets(),
                            c.inPackets(),
                            c.outPackets()));
        }
        sb.append(
                String.format(
                        Locale.ROOT,
                        "  rate %.1f %s/s (target %s)%s%n",
                        achievedRate(),
                        rateUnit,
                        targetRate <= 0
                                ? "unlimited"
                                : String.format(Locale.ROOT, "%.0f", targetRate),
                        rateHeld()
                                ? ""
                                : String.format(
                                        Locale.ROOT,
                                        "  CANNOT KEEP UP: %d %s behind schedule",
                                        shortfall,
                                        rateUnit)));
        for (ExporterTotals e : exporters) {
            sb.append(
                    String.format(
                            Locale.ROOT,
                            "  exporter %d %s %s domain %d: flows %d packets %d bytes %d"
                                    + " datagrams %d malformed %d errors %d%n",
                            e.index(),
                            e.protocol(),
                            e.source(),
                            e.domainId(),
                            e.flows(),
                            e.packets(),
                            e.bytes(),
                            e.datagrams(),
                            e.malformed(),
                            e.sendErrors()));
        }
        return sb.toString();
    }

    /** The summary as a JSON object (stable field names, documented in the README). */
    public String toJson() {
        StringBuilder sb = new StringBuilder(1024);
        sb.append("{\n");
        field(sb, "target", target);
        field(sb, "rate_unit", rateUnit);
        num(sb, "target_rate", targetRate);
        num(sb, "achieved_rate", achievedRate());
        sb.append("  \"rate_held\": ").append(rateHeld()).append(",\n");
        num(sb, "shortfall", shortfall);
        num(sb, "seed", seed);
        num(sb, "elapsed_seconds", elapsedSeconds());
        num(sb, "flows", flows());
        num(sb, "packets", packets());
        num(sb, "bytes", bytes());
        num(sb, "datagrams", datagrams());
        num(sb, "wire_bytes", wireBytes());
        num(sb, "template_records", templateRecords());
        num(sb, "options_records", optionsRecords());
        num(sb, "malformed_datagrams", malformed());
        num(sb, "sequence_gaps", gaps());
        num(sb, "send_errors", sendErrors());
        CounterTotals c = counters();
        num(sb, "counter_samples", c.samples());
        num(sb, "counter_in_octets", c.inOctets());
        num(sb, "counter_out_octets", c.outOctets());
        num(sb, "counter_in_packets", c.inPackets());
        num(sb, "counter_out_packets", c.outPackets());
        num(sb, "counter_in_discards", c.inDiscards());
        num(sb, "counter_out_discards", c.outDiscards());
        num(sb, "counter_in_errors", c.inErrors());
        num(sb, "counter_out_errors", c.outErrors());
        num(sb, "counter_fcs_errors", c.fcsErrors());
        sb.append("  \"exporters\": [");
        for (int i = 0; i < exporters.size(); i++) {
            ExporterTotals e = exporters.get(i);
            sb.append(i == 0 ? "\n" : ",\n");
            sb.append(
                    String.format(
                            Locale.ROOT,
                            "    {\"index\": %d, \"protocol\": \"%s\", \"source\": \"%s\","
                                    + " \"domain_id\": %d, \"flows\": %d, \"packets\": %d,"
                                    + " \"bytes\": %d, \"datagrams\": %d, \"wire_bytes\": %d,"
                                    + " \"template_records\": %d, \"options_records\": %d,"
                                    + " \"malformed_datagrams\": %d, \"send_errors\": %d,"
                                    + " \"sequence_gaps\": %d, \"missing_sequence\": %d,"
                                    + " \"next_sequence\": %d}",
                            e.index(),
                            e.protocol(),
                            e.source(),
                            e.domainId(),
                            e.flows(),
                            e.packets(),
                            e.bytes(),
                            e.datagrams(),
                            e.wireBytes(),
                            e.templateRecords(),
                            e.optionsRecords(),
                            e.malformed(),
                            e.sendErrors(),
                            e.gaps(),
                            e.missingSequence(),
                            e.lastSequence()));
        }
        sb.append("\n  ]\n}\n");
        return sb.toString();
    }

    private static void field(StringBuilder sb, String name, String value) {
        sb.append("  \"").append(name).append("\": \"");
        for (char c : value.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        sb.append("\",\n");
    }

    private static void num(StringBuilder sb, String name, double value) {
        sb.append("  \"").append(name).append("\": ");
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            sb.append((long) value);
        } else {
            sb.append(String.format(Locale.ROOT, "%.3f", value));
        }
        sb.append(",\n");
    }

    private static void num(StringBuilder sb, String name, long value) {
        sb.append("  \"").append(name).append("\": ").append(value).append(",\n");
    }
}
