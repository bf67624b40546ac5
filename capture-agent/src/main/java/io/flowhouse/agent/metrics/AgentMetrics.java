// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.metrics;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.ParseResult;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.EnumMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The agent's counters: one for every place data can be lost, plus throughput. Hot paths bump
 * {@link LongAdder}s; Prometheus reads them through callbacks at scrape time, so a scrape never
 * contends with the receive path. Names follow Prometheus conventions ({@code
 * flowhouse_agent_*_total}).
 */
public final class AgentMetrics {

    /** Why a datagram did not reach Kafka (or the rejected topic). */
    public enum Drop {
        /** The exporter is not in the allow-list. */
        NOT_ALLOWED,
        /** Kafka was away and the spool was full. */
        SPOOL_FULL,
        /** Kafka refused the record for good (e.g. too large, not authorized). */
        KAFKA_FATAL,
        /** Header check failed and rejected datagrams are not forwarded. */
        REJECTED_NOT_FORWARDED,
        /** The agent was shutting down and could neither send nor spool it. */
        SHUTDOWN
    }

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final ConcurrentHashMap<ExporterVersion, Traffic> traffic = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> rejects = new ConcurrentHashMap<>();
    private final EnumMap<Drop, LongAdder> drops = new EnumMap<>(Drop.class);
    private final EnumMap<ParseResult, LongAdder> packets = new EnumMap<>(ParseResult.class);
    private final ConcurrentHashMap<String, LongAdder> sent = new ConcurrentHashMap<>();
    private final LongAdder sendErrors = new LongAdder();
    private final LongAdder spooled = new LongAdder();
    private final LongAdder unspooled = new LongAdder();
    private final LongAdder packetBatches = new LongAdder();
    private final LongAdder pcapDrops = new LongAdder();
    private final LongAdder pcapIfDrops = new LongAdder();
    private final LongAdder captureReopens = new LongAdder();
    private volatile LongSupplier streamsStarted = () -> 0;
    private volatile LongSupplier streamsEvicted = () -> 0;
    private volatile LongSupplier spoolRecords = () -> 0;
    private volatile LongSupplier spoolBytes = () -> 0;
    private volatile KernelUdpStats kernel = KernelUdpStats.none();

    public AgentMetrics() {
        for (Drop d : Drop.values()) {
            drops.put(d, new LongAdder());
        }
        for (ParseResult r : ParseResult.values()) {
            packets.put(r, new LongAdder());
        }
        CounterWithCallback.builder()
                .name("flowhouse_agent_datagrams_total")
                .help("UDP datagrams received, by exporter address and export version")
                .labelNames("exporter", "version")
                .callback(
                        cb ->
                                traffic.forEach(
                                        (k, t) ->
                                                cb.call(
                                                        t.datagrams.sum(),
                                                        k.exporter().toString(),
                                                        Integer.toString(k.version()))))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_datagram_bytes_total")
                .help("UDP payload bytes received, by exporter address and export version")
                .labelNames("exporter", "version")
                .callback(
                        cb ->
                                traffic.forEach(
                                        (k, t) ->
                                                cb.call(
                                                        t.bytes.sum(),
                                                        k.exporter().toString(),
                                                        Integer.toString(k.version()))))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_rejected_datagrams_total")
                .help("datagrams that failed the header check, by reason")
                .labelNames("reason")
                .callback(cb -> rejects.forEach((r, n) -> cb.call(n.sum(), r)))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_dropped_datagrams_total")
                .help("datagrams that did not reach Kafka, by reason")
                .labelNames("reason")
                .callback(cb -> drops.forEach((d, n) -> cb.call(n.sum(), d.name())))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_kafka_records_total")
                .help("records acknowledged by Kafka, by topic")
                .labelNames("topic")
                .callback(cb -> sent.forEach((t, n) -> cb.call(n.sum(), t)))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_kafka_send_errors_total")
                .help("records whose Kafka send failed (they are spooled and retried)")
                .callback(cb -> cb.call(sendErrors.sum()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_spooled_records_total")
                .help("records written to the on-disk spool")
                .callback(cb -> cb.call(spooled.sum()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_unspooled_records_total")
                .help("spooled records delivered to Kafka")
                .callback(cb -> cb.call(unspooled.sum()))
                .register(registry);
        GaugeWithCallback.builder()
                .name("flowhouse_agent_spool_depth_records")
                .help("records waiting in the on-disk spool")
                .callback(cb -> cb.call(spoolRecords.getAsLong()))
                .register(registry);
        GaugeWithCallback.builder()
                .name("flowhouse_agent_spool_bytes")
                .help("bytes the on-disk spool takes")
                .callback(cb -> cb.call(spoolBytes.getAsLong()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_socket_drops_total")
                .help("datagrams the kernel dropped on the agent's UDP sockets (/proc/net/udp{,6})")
                .labelNames("port")
                .callback(
                        cb ->
                                kernel.dropsByPort()
                                        .forEach((p, n) -> cb.call(n, Integer.toString(p))))
                .register(registry);
        GaugeWithCallback.builder()
                .name("flowhouse_agent_socket_receive_queue_bytes")
                .help("bytes waiting in the agent's UDP socket receive queues")
                .labelNames("port")
                .callback(
                        cb ->
                                kernel.queuedByPort()
                                        .forEach((p, n) -> cb.call(n, Integer.toString(p))))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_packets_total")
                .help("captured packets, by parse result")
                .labelNames("result")
                .callback(cb -> packets.forEach((r, n) -> cb.call(n.sum(), r.name())))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_packet_batches_total")
                .help("packet summary batches handed to Kafka")
                .callback(cb -> cb.call(packetBatches.sum()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_stamp_streams_total")
                .help("stamp streams begun in this run (one per exporter and receive thread)")
                .callback(cb -> cb.call(streamsStarted.getAsLong()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_stamp_streams_evicted_total")
                .help(
                        "stamp streams forgotten beyond udp.max-exporter-streams (the exporter"
                                + " begins a new one if it returns)")
                .callback(cb -> cb.call(streamsEvicted.getAsLong()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_capture_reopens_total")
                .help("live captures reopened after their interface failed (went down, vanished)")
                .callback(cb -> cb.call(captureReopens.sum()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_pcap_drops_total")
                .help("packets libpcap reports dropped (kernel buffer full / interface)")
                .labelNames("where")
                .callback(
                        cb -> {
                            cb.call(pcapDrops.sum(), "kernel");
                            cb.call(pcapIfDrops.sum(), "interface");
                        })
                .register(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /** The traffic counters of one exporter and version; callers may cache the result. */
    public Traffic traffic(IpAddress exporter, int version) {
        ExporterVersion key = new ExporterVersion(exporter, version);
        Traffic t = traffic.get(key);
        return t != null ? t : traffic.computeIfAbsent(key, k -> new Traffic());
    }

    public void rejected(String reason) {
        rejects.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    public void dropped(Drop why) {
        drops.get(why).increment();
    }

    public void sent(String topic) {
        sentCounter(topic).increment();
    }

    /** The acknowledged-records counter of a topic, for callers that count per record. */
    public LongAdder sentCounter(String topic) {
        LongAdder n = sent.get(topic);
        return n != null ? n : sent.computeIfAbsent(topic, t -> new LongAdder());
    }

    public void sendError() {
        sendErrors.increment();
    }

    public void spooled() {
        spooled.increment();
    }

    public void unspooled(long n) {
        unspooled.add(n);
    }

    public void packet(ParseResult result) {
        packets.get(result).increment();
    }

    public void packetBatch() {
        packetBatches.increment();
    }

    public void captureReopened() {
        captureReopens.increment();
    }

    public long captureReopens() {
        return captureReopens.sum();
    }

    /** Records libpcap's cumulative drop counters (delta since the last call is added). */
    public void pcapDrops(long kernelDelta, long interfaceDelta) {
        pcapDrops.add(kernelDelta);
        pcapIfDrops.add(interfaceDelta);
    }

    public void stampGauges(LongSupplier started, LongSupplier evicted) {
        streamsStarted = started;
        streamsEvicted = evicted;
    }

    public void spoolGauges(LongSupplier records, LongSupplier bytes) {
        spoolRecords = records;
        spoolBytes = bytes;
    }

    public void kernelStats(KernelUdpStats stats) {
        kernel = stats;
    }

    // Read-outs for tests, benchmarks and the health endpoint.

    public long datagrams() {
        return traffic.values().stream().mapToLong(t -> t.datagrams.sum()).sum();
    }

    public long rejectedCount() {
        return rejects.values().stream().mapToLong(LongAdder::sum).sum();
    }

    public long droppedCount(Drop why) {
        return drops.get(why).sum();
    }

    public long droppedCount() {
        return drops.values().stream().mapToLong(LongAdder::sum).sum();
    }

    public long sentCount(String topic) {
        LongAdder n = sent.get(topic);
        return n == null ? 0 : n.sum();
    }

    public long sendErrors() {
        return sendErrors.sum();
    }

    public long spooledCount() {
        return spooled.sum();
    }

    public long packetCount(ParseResult result) {
        return packets.get(result).sum();
    }

    public long packetBatches() {
        return packetBatches.sum();
    }

    public long spoolDepth() {
        return spoolRecords.getAsLong();
    }

    public KernelUdpStats kernelStats() {
        return kernel;
    }

    private record ExporterVersion(IpAddress exporter, int version) {}

    /** Datagram and byte counters of one exporter and version. */
    public static final class Traffic {
        private final LongAdder datagrams = new LongAdder();
        private final LongAdder bytes = new LongAdder();

        public void add(int payloadBytes) {
            datagrams.increment();
            bytes.add(payloadBytes);
        }
    }
}
