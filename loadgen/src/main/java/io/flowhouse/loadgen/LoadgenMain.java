// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen;

import io.flowhouse.config.cli.Cli;
import io.flowhouse.loadgen.cli.LoadgenCommand;
import io.flowhouse.loadgen.emit.DatagramEmitter;
import io.flowhouse.loadgen.emit.DatagramSink;
import io.flowhouse.loadgen.emit.PcapSink;
import io.flowhouse.loadgen.emit.TeeSink;
import io.flowhouse.loadgen.emit.UdpSink;
import io.flowhouse.loadgen.export.DatagramSource;
import io.flowhouse.loadgen.export.ExportProtocol;
import io.flowhouse.loadgen.export.ReplayExporter;
import io.flowhouse.loadgen.export.SimulatedExporter;
import io.flowhouse.loadgen.generate.AddressPool;
import io.flowhouse.loadgen.generate.FlowGenerator;
import io.flowhouse.loadgen.packets.PacketPcapGenerator;
import io.flowhouse.loadgen.report.RunSummary;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code ./flowhouse loadgen}: NetFlow v5/v9/IPFIX from N simulated exporters at a target rate, for
 * a duration or a count, with a live progress line on stderr and exact totals at the end. Wiring
 * only; the parts live in {@code generate}, {@code export} and {@code emit}.
 *
 * <p>Exit codes: 0 done, 1 I/O failure, 2 bad arguments, 3 target rate not held (with {@code
 * --require-rate}).
 */
public final class LoadgenMain {

    public static final int EXIT_OK = Cli.OK;
    public static final int EXIT_FAILURE = Cli.FAILURE;
    public static final int EXIT_USAGE = Cli.USAGE;
    public static final int EXIT_RATE_NOT_HELD = 3;

    private LoadgenMain() {}

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs with the process's stdout and stderr. */
    public static int run(String[] args) {
        return run(args, System.out, System.err);
    }

    /** Runs; the summary goes to {@code out}, progress and errors to {@code err}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return Cli.execute(new LoadgenCommand(System.getenv(), out, err), args, out, err);
    }

    /**
     * Runs resolved options: the typed entry point for callers that built them.
     *
     * @return {@link #EXIT_OK}, {@link #EXIT_FAILURE} or {@link #EXIT_RATE_NOT_HELD}
     */
    public static int run(LoadgenOptions o, PrintStream out, PrintStream err) {
        try {
            if (o.packetsPcapOut() != null) {
                PacketPcapGenerator.Totals t =
                        new PacketPcapGenerator(o.profile(), o.seed())
                                .write(o.packetsPcapOut(), o.packetFlows(), o.startMillis());
                out.println(t.format(o.packetsPcapOut()));
                if (o.summaryJson() != null && o.target() == null && o.pcapOut() == null) {
                    Files.writeString(o.summaryJson(), t.toJson(), StandardCharsets.UTF_8);
                }
                if (o.target() == null && o.pcapOut() == null) {
                    return EXIT_OK;
                }
            }
            RunSummary s = send(o, err);
            out.print(s.format());
            if (o.summaryJson() != null) {
                Files.writeString(o.summaryJson(), s.toJson(), StandardCharsets.UTF_8);
            }
            if (!s.rateHeld()) {
                err.printf(
                        Locale.ROOT,
                        "loadgen: could not keep up with %.0f %s/s: achieved %.1f/s, %d behind%n",
                        s.targetRate(),
                        s.rateUnit(),
                        s.achievedRate(),
                        s.shortfall());
                if (o.requireRate()) {
                    return EXIT_RATE_NOT_HELD;
                }
            }
            return EXIT_OK;
        } catch (IOException | RuntimeException e) {
            err.println("loadgen: " + e);
            return EXIT_FAILURE;
        }
    }

    /** Builds exporters and sinks for {@code o} and runs the emitter to the end. */
    public static RunSummary send(LoadgenOptions o, PrintStream err) throws IOException {
        long now = System.currentTimeMillis();
        boolean paced = o.target() != null;
        long first = paced ? now : o.startMillis();
        FlowGenerator gen =
                new FlowGenerator(
                        o.profile(),
                        o.seed(),
                        o.prefixes() == null ? null : AddressPool.read(o.prefixes()));
        List<DatagramSource> exporters = new ArrayList<>(o.exporters());
        for (int i = 0; i < o.exporters(); i++) {
            SimulatedExporter sim =
                    new SimulatedExporter(i, protocolOf(o.protocol(), i), gen, o.seed(), first);
            // The pool is built before the clock starts: the run then only patches headers.
            exporters.add(
                    paced && o.replayPool() > 0
                            ? new ReplayExporter(sim, o.replayPool(), first)
                            : sim);
        }
        List<DatagramSink> sinks = new ArrayList<>(2);
        try {
            if (paced) {
                sinks.add(
                        new UdpSink(
                                o.exporters(),
                                o.target(),
                                o.bindAddress(),
                                o.sourcePortBase(),
                                o.sendBufferBytes()));
            }
            if (o.pcapOut() != null) {
                InetSocketAddress dst =
                        o.target() != null
                                ? o.target()
                                : new InetSocketAddress(
                                        "127.0.0.1", protocolOf(o.protocol(), 0).defaultPort());
                sinks.add(
                        paced
                                ? PcapSink.following(
                                        o.pcapOut(), (UdpSink) sinks.get(0), o.exporters())
                                : PcapSink.synthetic(
                                        o.pcapOut(),
                                        dst,
                                        o.sourcePortBase() > 0 ? o.sourcePortBase() : 40_000,
                                        o.exporters()));
            }
        } catch (IOException | RuntimeException e) {
            for (DatagramSink s : sinks) {
                try {
                    s.close();
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            throw e;
        }
        try (DatagramSink sink = sinks.size() == 1 ? sinks.get(0) : new TeeSink(sinks)) {
            DatagramEmitter.Settings settings =
                    new DatagramEmitter.Settings(
                            o.unit(),
                            o.rate(),
                            o.count(),
                            o.duration() == null ? 0 : o.duration().toNanos(),
                            paced,
                            first);
            ProgressLine line = o.quiet() ? null : new ProgressLine(err, o.unit(), o.rate());
            DatagramEmitter emitter =
                    new DatagramEmitter(
                            exporters,
                            sink,
                            settings,
                            System::nanoTime,
                            System::currentTimeMillis,
                            line == null ? null : line::update);
            Thread hook = new Thread(emitter::stop, "loadgen-stop");
            Runtime.getRuntime().addShutdownHook(hook);
            RunSummary summary;
            try {
                summary =
                        emitter.run(
                                o.target() == null
                                        ? ""
                                        : o.target().getAddress().getHostAddress()
                                                + ":"
                                                + o.target().getPort(),
                                o.seed());
            } finally {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the JVM is exiting; the hook has already asked the emitter to stop
                }
            }
            if (line != null) {
                line.finish();
            }
            return summary;
        }
    }

    static ExportProtocol protocolOf(String protocol, int exporter) {
        if ("mix".equals(protocol)) {
            return ExportProtocol.values()[exporter % 3];
        }
        return ExportProtocol.parse(protocol);
    }
}
