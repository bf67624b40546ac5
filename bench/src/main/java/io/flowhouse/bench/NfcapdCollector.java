// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * nfdump's collectors, nfcapd (NetFlow/IPFIX) or sfcapd (sFlow, one flow per flow sample), writing
 * flows to files; one collector per step so each step's file is closed and counted with {@code
 * nfdump -I}. Delivered = flows in the file.
 */
final class NfcapdCollector implements Collector {
    private final BenchContext ctx;
    private final String name;
    private final Path nfcapd;
    private final Path nfdump;
    private final int port;
    private ChildProcess process;
    private KernelSetting maxBuffer;
    private Path stepDir;
    private int step;

    /** {@code nfcapd} is nfcapd's or sfcapd's path; they take the same options. */
    NfcapdCollector(BenchContext ctx, Path nfcapd, Path nfdump) throws IOException {
        this.ctx = ctx;
        this.name = nfcapd.getFileName().toString();
        this.nfcapd = nfcapd;
        this.nfdump = nfdump;
        this.port = BenchContext.freeUdpPort();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String unit() {
        return "flows";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public void open() throws IOException {
        Files.createDirectories(ctx.workDir().resolve(name));
        // nfcapd's -B is a plain SO_RCVBUF, capped by rmem_max: raised for its run so it gets
        // what the agent asks per socket.
        maxBuffer = KernelSetting.atLeast("net/core/rmem_max", AgentCollector.RECEIVE_BUFFER_BYTES);
    }

    @Override
    public void beginStep() throws Exception {
        stepDir = Files.createDirectories(ctx.workDir().resolve(name + "/step-" + step++));
        process =
                ChildProcess.start(
                        name(),
                        List.of(
                                nfcapd.toString(),
                                "-b",
                                "127.0.0.1",
                                "-p",
                                Integer.toString(port),
                                "-w",
                                stepDir.toString(),
                                "-B",
                                Long.toString(AgentCollector.RECEIVE_BUFFER_BYTES),
                                "-t",
                                "3600"),
                        stepDir.resolve(name + ".log"));
        process.awaitUdp(port, 20);
    }

    @Override
    public void awaitDrained(long expected, long maxMillis) throws Exception {
        // nfcapd counts only in its file; wait until its socket queue is empty for a second.
        long deadline = System.nanoTime() + maxMillis * 1_000_000L;
        int quiet = 0;
        while (System.nanoTime() < deadline && quiet < 5) {
            quiet = BenchContext.udpQueueBytes(port) == 0 ? quiet + 1 : 0;
            Thread.sleep(200);
        }
    }

    @Override
    public long finishStep() throws Exception {
        process.stop(20);
        Path file;
        try (Stream<Path> files = Files.list(stepDir)) {
            file =
                    files.filter(p -> p.getFileName().toString().startsWith("nfcapd.2"))
                            .findFirst()
                            .orElse(null);
        }
        if (file == null) {
            return 0;
        }
        String info =
                BenchContext.runTool(List.of(nfdump.toString(), "-r", file.toString(), "-I"), 60);
        Files.deleteIfExists(file); // counted; at high rates a step's file is hundreds of MB
        Matcher m = Pattern.compile("(?m)^Flows: *([0-9]+)").matcher(info);
        if (!m.find()) {
            throw new IOException("no flow count in nfdump -I output: " + info);
        }
        return Long.parseLong(m.group(1));
    }

    @Override
    public Map<String, Long> internalDrops() {
        return Map.of();
    }

    @Override
    public Map<String, Long> processes() {
        return process == null ? Map.of() : Map.of(name, process.pid());
    }

    @Override
    public List<String> notes() {
        return List.of(
                name
                        + " "
                        + nfcapd
                        + " -B "
                        + AgentCollector.RECEIVE_BUFFER_BYTES
                        + " -t 3600, counted with nfdump -I; "
                        + (maxBuffer == null ? "not opened" : maxBuffer.note()));
    }

    @Override
    public void close() throws Exception {
        try {
            if (process != null) {
                process.stop(15);
            }
        } finally {
            if (maxBuffer != null) {
                maxBuffer.close();
            }
        }
    }
}
