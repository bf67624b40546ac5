// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * goflow2 (netsampler) decoding NetFlow/IPFIX (or sFlow: one message per flow sample) and producing
 * one protobuf message per flow to its own Kafka topic. Delivered = messages in that topic;
 * internal drops = its decoder errors.
 */
final class Goflow2Collector implements Collector {
    private final BenchContext ctx;
    private final Path binary;
    private final int port;
    private final int metricsPort;
    private final String topic;
    private final String scheme;
    private ChildProcess process;
    private KernelSetting receiveBuffer;
    private long baseline;

    /**
     * {@code protocol} as loadgen takes it: sflow listens for sFlow, anything else NetFlow/IPFIX.
     */
    Goflow2Collector(BenchContext ctx, Path binary, String protocol) throws java.io.IOException {
        this.ctx = ctx;
        this.scheme = protocol.equals("sflow") ? "sflow" : "netflow";
        this.binary = binary;
        this.port = BenchContext.freeUdpPort();
        this.metricsPort = BenchContext.freeTcpPort();
        this.topic = "bench-goflow2-" + ctx.runId();
    }

    @Override
    public String name() {
        return "goflow2";
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
    public void open() throws Exception {
        ctx.createTopic(topic, 4);
        // goflow2 v2 has no receive-buffer flag: it gets what the agent asks per socket through
        // the kernel's default for new sockets, for its run only.
        receiveBuffer =
                KernelSetting.atLeast("net/core/rmem_default", AgentCollector.RECEIVE_BUFFER_BYTES);
        Path dir = Files.createDirectories(ctx.workDir().resolve("goflow2"));
        process =
                ChildProcess.start(
                        name(),
                        List.of(
                                binary.toString(),
                                "-listen",
                                scheme + "://127.0.0.1:" + port,
                                "-addr",
                                "127.0.0.1:" + metricsPort,
                                "-format",
                                "bin",
                                "-transport",
                                "kafka",
                                "-transport.kafka.brokers",
                                ctx.bootstrap(),
                                "-transport.kafka.topic",
                                topic,
                                "-transport.kafka.flushfreq",
                                "500ms",
                                "-loglevel",
                                "warn"),
                        dir.resolve("goflow2.log"));
        process.awaitUdp(port, 30);
    }

    private String metricsUrl() {
        return "http://127.0.0.1:" + metricsPort + "/metrics";
    }

    @Override
    public void beginStep() throws Exception {
        process.requireAlive();
        baseline = ctx.kafka().records(topic);
    }

    @Override
    public void awaitDrained(long expected, long maxMillis) throws Exception {
        BenchContext.awaitStable(() -> ctx.kafka().records(topic) - baseline, expected, maxMillis);
    }

    @Override
    public long finishStep() throws Exception {
        return ctx.kafka().records(topic) - baseline;
    }

    @Override
    public Map<String, Long> internalDrops() throws Exception {
        PrometheusScrape m = PrometheusScrape.fetch(metricsUrl());
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("decoder_errors", m.sum("goflow2_flow_decoder_error_total"));
        return out;
    }

    @Override
    public Map<String, Long> processes() {
        return Map.of("goflow2", process.pid());
    }

    @Override
    public List<String> notes() {
        return List.of(
                "goflow2 "
                        + binary
                        + " -listen "
                        + scheme
                        + "://... -format bin -transport kafka (flushfreq 500ms), topic "
                        + topic,
                "goflow2 v2 has no receive-buffer option: its socket gets the kernel default, raised"
                        + " to what the agent asks per socket: "
                        + (receiveBuffer == null ? "not opened" : receiveBuffer.note()));
    }

    @Override
    public void close() throws Exception {
        try {
            if (process != null) {
                process.stop(15);
            }
            ctx.kafka().deleteQuietly(topic);
        } finally {
            if (receiveBuffer != null) {
                receiveBuffer.close();
            }
        }
    }
}
