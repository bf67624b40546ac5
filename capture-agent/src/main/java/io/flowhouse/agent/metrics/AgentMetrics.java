// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.metrics;

import io.flowhouse.agent.spool.DiskSpool;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.packet.ParseResult;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The agent's counters: one for every place data can be lost, plus throughput. Hot paths bump
 * {@link LongAdder}s; Prometheus reads them through callbacks at scrape time, so a scrape never
 * contends with the receive path. Names follow Prometheus conventions ({@code
 * flowhouse_agent_*_total}).
 *
 * <p>Per-exporter series are bounded, since anyone can send from any (spoofed) address: at most
 * {@code metrics.max-exporters} addresses get their own {@code exporter} label, the traffic of the
 * rest is counted under {@code exporter="other"} (and in {@code
 * flowhouse_agent_exporter_folded_datagrams_total}), and the series of an exporter silent for
 * {@code metrics.exporter-ttl} are removed by {@link #expireExporters()}, which makes room again.
 */
public final class AgentMetrics {

    /** Why a datagram did not reach Kafka (or the rejected topic). */
    public enum Drop {
        /** The exporter is not in the allow-list. */
        NOT_ALLOWED,
        /** Kafka was away and the spool was full. */
        SPOOL_FULL,
        /** Kafka was away and the file system under the spool was full (ENOSPC). */
        SPOOL_NO_SPACE,
        /** Kafka was away and writing the spool failed (EIO, ...). */
        SPOOL_IO_ERROR,
        /** Kafka refused the record for good (e.g. too large, not authorized). */
        KAFKA_FATAL,
        /** Header check failed and rejected datagrams are not forwarded. */
        REJECTED_NOT_FORWARDED,
        /** The agent was shutting down and could neither send nor spool it. */
        SHUTDOWN
    }

    /** Why the datagram batcher wrote a record. */
    public enum BatchFlush {
        /** It held {@code kafka.record-max-datagrams}. */
        DATAGRAMS,
        /** The next datagram would have passed {@code kafka.record-max-bytes}. */
        BYTES,
        /** Its first datagram waited {@code kafka.record-linger-ms}. */
        LINGER,
        /** The agent was stopping. */
        SHUTDOWN
    }

    /** The label of the traffic of exporters beyond {@code metrics.max-exporters}. */
    public static final String OTHER_EXPORTERS = "other";

    /** Default of {@code metrics.max-exporters}. */
    public static final int DEFAULT_MAX_EXPORTERS = 1_000;

    /** Default of {@code metrics.exporter-ttl}. */
    public static final Duration DEFAULT_EXPORTER_TTL = Duration.ofHours(1);

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final int maxExporters;
    private final long exporterTtlNanos;
    private final ConcurrentHashMap<IpAddress, Exporter> exporters = new ConcurrentHashMap<>();
    private final Exporter other;
    private final Object admitLock = new Object();
    private final LongAdder folded = new LongAdder();
    private final LongAdder expired = new LongAdder();
    private final LongAdder retiredDatagrams = new LongAdder();

    /** A coarse clock (nanoTime, set by {@link #expireExporters()}) for the last-heard stamps. */
    private volatile long coarseNanos = System.nanoTime();

    private final ConcurrentHashMap<String, LongAdder> rejects = new ConcurrentHashMap<>();
    private final EnumMap<Drop, LongAdder> drops = new EnumMap<>(Drop.class);
    private final EnumMap<ParseResult, LongAdder> packets = new EnumMap<>(ParseResult.class);
    private final ConcurrentHashMap<String, LongAdder> sent = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<String, LongAdder> sentBeyondRecords =
            new ConcurrentHashMap<>();
    private final LongAdder sendErrors = new LongAdder();
    private final EnumMap<BatchFlush, LongAdder> batchFlushes = new EnumMap<>(BatchFlush.class);
    private final LongAdder batchedDatagrams = new LongAdder();
    private final LongAdder spooled = new LongAdder();
    private final LongAdder spooledDatagrams = new LongAdder();
    private final LongAdder unspooled = new LongAdder();
    private final LongAdder packetBatches = new LongAdder();
    private final LongAdder clockTicks = new LongAdder();
    private final LongAdder endOfCaptureMarks = new LongAdder();
    private final LongAdder pcapDrops = new LongAdder();
    private final LongAdder pcapIfDrops = new LongAdder();
    private final LongAdder captureReopens = new LongAdder();
    private volatile LongSupplier streamsStarted = () -> 0;
    private volatile LongSupplier streamsEvicted = () -> 0;
    private volatile DiskSpool spool;
    private volatile KernelUdpStats kernel = KernelUdpStats.none();

    /** With the default bounds of the exporter series. */
    public AgentMetrics() {
        this(DEFAULT_MAX_EXPORTERS, DEFAULT_EXPORTER_TTL);
    }

    /**
     * @param maxExporters exporter addresses with their own series ({@code metrics.max-exporters})
     * @param exporterTtl silence after which an exporter's series are removed ({@code
     *     metrics.exporter-ttl})
     */
    public AgentMetrics(int maxExporters, Duration exporterTtl) {
        if (maxExporters < 1 || exporterTtl.isNegative() || exporterTtl.isZero()) {
            throw new IllegalArgumentException(
                    "max exporters " + maxExporters + ", ttl " + exporterTtl);
        }
        this.maxExporters = maxExporters;
        this.exporterTtlNanos = exporterTtl.toNanos();
        this.other = new Exporter(0, folded);
        for (Drop d : Drop.values()) {
            drops.put(d, new LongAdder());
        }
        for (ParseResult r : ParseResult.values()) {
            packets.put(r, new LongAdder());
        }
        for (BatchFlush f : BatchFlush.values()) {
            batchFlushes.put(f, new LongAdder());
        }
        CounterWithCallback.builder()
                .name("flowhouse_agent_datagrams_total")
                .help(
                        "UDP datagrams received, by exporter address (\"other\" beyond"
                                + " metrics.max-exporters) and export version")
                .labelNames("exporter", "version")
                .callback(cb -> eachTraffic((e, v, t) -> cb.call(t.datagrams.sum(), e, v)))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_datagram_bytes_total")
                .help(
                        "UDP payload bytes received, by exporter address (\"other\" beyond"
                                + " metrics.max-exporters) and export version")
                .labelNames("exporter", "version")
                .callback(cb -> eachTraffic((e, v, t) -> cb.call(t.bytes.sum(), e, v)))
                .register(registry);
        GaugeWithCallback.builder()
                .name("flowhouse_agent_exporter_series")
                .help("exporter addresses with their own series (at most metrics.max-exporters)")
                .callback(cb -> cb.call(exporters.size()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_exporter_folded_datagrams_total")
                .help(
                        "datagrams counted under exporter=\"other\": their address came when"
                                + " metrics.max-exporters addresses had series")
                .callback(cb -> cb.call(folded.sum()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_exporter_series_expired_total")
                .help("exporters whose series were removed after metrics.exporter-ttl of silence")
                .callback(cb -> cb.call(expired.sum()))
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
        registerBatchMetrics();
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
                .name("flowhouse_agent_spooled_datagrams_total")
                .help(
                        "datagrams in the records written to the on-disk spool (more than the records"
                                + " with batch records)")
                .callback(cb -> cb.call(spooledDatagrams.sum()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_unspooled_records_total")
                .help("spooled records delivered to Kafka")
                .callback(cb -> cb.call(unspooled.sum()))
                .register(registry);
        GaugeWithCallback.builder()
                .name("flowhouse_agent_spool_depth_records")
                .help("records waiting in the on-disk spool")
                .callback(cb -> cb.call(spool == null ? 0 : spool.records()))
                .register(registry);
        GaugeWithCallback.builder()
                .name("flowhouse_agent_spool_bytes")
                .help("bytes the on-disk spool takes")
                .callback(cb -> cb.call(spool == null ? 0 : spool.bytes()))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_spool_problems_total")
                .help(
                        "spool file problems, by kind (bad head, torn tail, corrupt frame, missing"
                                + " segment, no space, I/O error, sync error, head write error)")
                .labelNames("problem")
                .callback(
                        cb -> {
                            DiskSpool s = spool;
                            for (DiskSpool.Problem p : DiskSpool.Problem.values()) {
                                cb.call(s == null ? 0 : s.problems(p), p.name());
                            }
                        })
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_spool_lost_records_total")
                .help("records the spool had taken and lost, by reason")
                .labelNames("reason")
                .callback(
                        cb -> {
                            DiskSpool s = spool;
                            for (DiskSpool.Loss l : DiskSpool.Loss.values()) {
                                cb.call(s == null ? 0 : s.lost(l), l.name());
                            }
                        })
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
        registerPacketMetrics();
        registerStampMetrics();
    }

    /** The datagram stamp's streams (one per exporter and receive thread). */
    private void registerStampMetrics() {
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
    }

    /** The packet path's metrics (capture, batches, clock marks). */
    private void registerPacketMetrics() {
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
                .name("flowhouse_agent_packet_clock_marks_total")
                .help(
                        "records on the packets topic that carry packet time but no packet: tick"
                                + " (a quiet live capture), end (the end of a packet file)")
                .labelNames("kind")
                .callback(
                        cb -> {
                            cb.call(clockTicks.sum(), "tick");
                            cb.call(endOfCaptureMarks.sum(), "end");
                        })
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

    /** The per-datagram acknowledgements and the batcher's records. */
    private void registerBatchMetrics() {
        CounterWithCallback.builder()
                .name("flowhouse_agent_kafka_datagrams_total")
                .help(
                        "datagrams in records acknowledged by Kafka, by topic (more than the"
                                + " records when kafka.record-max-datagrams is above 1)")
                .labelNames("topic")
                .callback(cb -> sent.forEach((t, n) -> cb.call(sentDatagrams(t), t)))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_kafka_batch_records_total")
                .help(
                        "flows.raw records the datagram batcher wrote, by why it flushed"
                                + " (datagrams, bytes, linger, shutdown)")
                .labelNames("cause")
                .callback(
                        cb ->
                                batchFlushes.forEach(
                                        (f, n) ->
                                                cb.call(
                                                        n.sum(),
                                                        f.name()
                                                                .toLowerCase(
                                                                        java.util.Locale.ROOT))))
                .register(registry);
        CounterWithCallback.builder()
                .name("flowhouse_agent_kafka_batched_datagrams_total")
                .help("datagrams the batcher wrote into those records")
                .callback(cb -> cb.call(batchedDatagrams.sum()))
                .register(registry);
    }

    public PrometheusRegistry registry() {
        return registry;
    }

    /**
     * The traffic counters of one exporter and version: its own series while fewer than {@code
     * metrics.max-exporters} addresses have one, else those of {@code exporter="other"}. Not to be
     * cached: the series of a silent exporter are removed.
     */
    public Traffic traffic(IpAddress exporter, int version) {
        Exporter e = exporters.get(exporter);
        if (e == null) {
            e = admit(exporter);
        }
        long now = coarseNanos;
        if (e.lastHeard != now) {
            e.lastHeard = now;
        }
        return e.version(version);
    }

    private Exporter admit(IpAddress exporter) {
        synchronized (admitLock) {
            Exporter e = exporters.get(exporter);
            if (e != null) {
                return e;
            }
            if (exporters.size() >= maxExporters) {
                return other;
            }
            e = new Exporter(coarseNanos, null);
            exporters.put(exporter, e);
            return e;
        }
    }

    /**
     * Removes the series of exporters not heard for {@code metrics.exporter-ttl}; their counts stay
     * in the totals ({@link #datagrams()}). Called every second or so; also advances the coarse
     * clock of the last-heard stamps.
     */
    public void expireExporters() {
        long now = System.nanoTime();
        coarseNanos = now;
        for (Map.Entry<IpAddress, Exporter> en : exporters.entrySet()) {
            Exporter e = en.getValue();
            if (now - e.lastHeard >= exporterTtlNanos && exporters.remove(en.getKey(), e)) {
                // A datagram counted on a series while it is removed is lost from the totals.
                retiredDatagrams.add(e.datagrams());
                expired.increment();
            }
        }
    }

    /** Exporter addresses with their own series now. */
    public int exporterSeries() {
        return exporters.size();
    }

    /** Datagrams counted under {@code exporter="other"}. */
    public long foldedDatagrams() {
        return folded.sum();
    }

    private interface TrafficVisitor {
        void visit(String exporter, String version, Traffic t);
    }

    private void eachTraffic(TrafficVisitor v) {
        exporters.forEach(
                (a, e) -> e.versions.forEach((ver, t) -> v.visit(a.toString(), ver.toString(), t)));
        other.versions.forEach((ver, t) -> v.visit(OTHER_EXPORTERS, ver.toString(), t));
    }

    public void rejected(String reason) {
        rejects.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    public void dropped(Drop why) {
        drops.get(why).increment();
    }

    /** {@code datagrams} datagrams of one record did not reach Kafka. */
    public void dropped(Drop why, int datagrams) {
        drops.get(why).add(datagrams);
    }

    /** A batch record of {@code datagrams} datagrams left the batcher, flushed for {@code why}. */
    public void batchFlushed(BatchFlush why, int datagrams) {
        batchFlushes.get(why).increment();
        batchedDatagrams.add(datagrams);
    }

    public long batchFlushes(BatchFlush why) {
        return batchFlushes.get(why).sum();
    }

    public long batchedDatagrams() {
        return batchedDatagrams.sum();
    }

    public void sent(String topic) {
        sentCounter(topic).increment();
    }

    /** The acknowledged-records counter of a topic, for callers that count per record. */
    public LongAdder sentCounter(String topic) {
        LongAdder n = sent.get(topic);
        return n != null ? n : sent.computeIfAbsent(topic, t -> new LongAdder());
    }

    /** A batch record of {@code datagrams} datagrams was acknowledged (after {@link #sent}). */
    public void sentBatch(String topic, int datagrams) {
        sentBeyondRecords.computeIfAbsent(topic, t -> new LongAdder()).add(datagrams - 1L);
    }

    /** Datagrams acknowledged on a topic: one per record, more for batch records. */
    public long sentDatagrams(String topic) {
        LongAdder beyond = sentBeyondRecords.get(topic);
        return sentCount(topic) + (beyond == null ? 0 : beyond.sum());
    }

    public void sendError() {
        sendErrors.increment();
    }

    public void spooled() {
        spooled(1);
    }

    /** A record of {@code datagrams} datagrams was written to the spool. */
    public void spooled(int datagrams) {
        spooled.increment();
        spooledDatagrams.add(datagrams);
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

    public void clockMark(boolean endOfCapture) {
        (endOfCapture ? endOfCaptureMarks : clockTicks).increment();
    }

    public long clockTicks() {
        return clockTicks.sum();
    }

    public long endOfCaptureMarks() {
        return endOfCaptureMarks.sum();
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

    /** The spool whose depth, size, problems and losses are exported. */
    public void spool(DiskSpool s) {
        spool = s;
    }

    public void kernelStats(KernelUdpStats stats) {
        kernel = stats;
    }

    // Read-outs for tests, benchmarks and the health endpoint.

    public long datagrams() {
        long n = retiredDatagrams.sum() + other.datagrams();
        for (Exporter e : exporters.values()) {
            n += e.datagrams();
        }
        return n;
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
        DiskSpool s = spool;
        return s == null ? 0 : s.records();
    }

    public KernelUdpStats kernelStats() {
        return kernel;
    }

    /** The series of one exporter address (or of "other"), one {@link Traffic} per version. */
    private final class Exporter {
        final ConcurrentHashMap<Integer, Traffic> versions = new ConcurrentHashMap<>(4);
        final LongAdder foldedInto;
        volatile long lastHeard;

        Exporter(long now, LongAdder foldedInto) {
            this.lastHeard = now;
            this.foldedInto = foldedInto;
        }

        Traffic version(int version) {
            Traffic t = versions.get(version);
            return t != null ? t : versions.computeIfAbsent(version, v -> new Traffic(foldedInto));
        }

        long datagrams() {
            long n = 0;
            for (Traffic t : versions.values()) {
                n += t.datagrams.sum();
            }
            return n;
        }
    }

    /** Datagram and byte counters of one exporter (or "other") and version. */
    public static final class Traffic {
        private final LongAdder datagrams = new LongAdder();
        private final LongAdder bytes = new LongAdder();
        private final LongAdder folded;

        Traffic(LongAdder folded) {
            this.folded = folded;
        }

        public void add(int payloadBytes) {
            datagrams.increment();
            bytes.add(payloadBytes);
            if (folded != null) {
                folded.increment();
            }
        }
    }
}
