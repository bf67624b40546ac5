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
    /** Six of goflow2's producer flush intervals (500 ms) without a new record. */
    private static final long QUIET_MILLIS = 3_000;

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
        // A lossy step's backlog (its socket holds up to 32 MiB) may still be decoding and
        // producing: counted into this step it once made a step deliver more than it sent.
        baseline = settle(Long.MAX_VALUE, 60_000);
    }

    @Override
    public void awaitDrained(long expected, long maxMillis) throws Exception {
        settle(baseline + expected, maxMillis);
    }

    /**
     * Waits until the topic holds {@code target} records, or goflow2 has nothing left: its socket's
     * receive queue empty, and neither its received-datagram counter nor the topic's count moved
     * for {@link #QUIET_MILLIS} (its producer flushes every 500 ms), or {@code maxMillis} pass; the
     * topic's count then.
     */
    private long settle(long target, long maxMillis) throws Exception {
        long deadline = System.nanoTime() + maxMillis * 1_000_000L;
        long last = ctx.kafka().records(topic);
        long received = receivedDatagrams();
        long lastChange = System.nanoTime();
        while (last < target && System.nanoTime() < deadline) {
            Thread.sleep(250);
            long now = ctx.kafka().records(topic);
            long nowReceived = receivedDatagrams();
            if (now != last || nowReceived != received || BenchContext.udpQueueBytes(port) > 0) {
                last = now;
                received = nowReceived;
                lastChange = System.nanoTime();
            } else if (System.nanoTime() - lastChange > QUIET_MILLIS * 1_000_000L) {
                break;
            }
        }
        return last;
    }

    /** goflow2's own count of datagrams read from its socket. */
    private long receivedDatagrams() throws Exception {
        return PrometheusScrape.fetch(metricsUrl()).sum("goflow2_flow_traffic_packets_total");
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
