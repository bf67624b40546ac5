// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.config;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.HostPort;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every key of the capture agent, declared once, and the {@link AgentConfig} they resolve to. The
 * key table in {@code capture-agent/README.md} and {@code flowhouse-agent.yaml} are generated from
 * these declarations ({@code ConfigDocsTest}).
 */
public final class AgentKeys {

    /** Default NetFlow v5/v9 port. */
    public static final int NETFLOW_PORT = 2055;

    /** Default IPFIX port (IANA). */
    public static final int IPFIX_PORT = 4739;

    /** Default sFlow port (IANA). */
    public static final int SFLOW_PORT = 6343;

    /** Default metrics port. */
    public static final int DEFAULT_METRICS_PORT = 9464;

    /**
     * Live capture snap length: summaries read headers only, and 256 bytes hold Ethernet, two VLAN
     * tags, IPv6 with extension headers and TCP with options. A full snap length fills libpcap's
     * ring with payload (64 KiB per packet for TCP over loopback) and it then drops packets sooner.
     */
    public static final int DEFAULT_SNAPLEN = 256;

    private static final ValueType<Double> SPEED =
            ValueType.of("max, 1x or Nx", AgentKeys::parseSpeed, AgentKeys::speedText);

    public static final Key<String> AGENT_ID =
            Key.of("agent.id", Types.STRING)
                    .defaultComputed(AgentKeys::defaultAgentId, "$HOSTNAME, else the host name")
                    .check(s -> !s.isBlank(), "a non-empty id")
                    .doc("Agent identity written into every raw datagram envelope.")
                    .flag("--agent-id", "ID");

    public static final Key<Boolean> UDP_ENABLED =
            Key.of("udp.enabled", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc(
                            "Run the UDP listeners. Off by default when --pcap or --interface is"
                                    + " on the command line (--with-udp keeps them).");

    public static final Key<List<HostPort>> UDP_LISTEN =
            Key.of("udp.listen", Types.list(Types.HOST_PORT))
                    .defaultValue(
                            List.of(
                                    new HostPort("::", NETFLOW_PORT),
                                    new HostPort("::", IPFIX_PORT),
                                    new HostPort("::", SFLOW_PORT)))
                    .doc(
                            "UDP listen addresses; :PORT binds all addresses. \"::\" is dual-stack"
                                    + " (IPv4 arrives as ::ffff:a.b.c.d). Every listener takes"
                                    + " every format: NetFlow v5/v9, IPFIX and sFlow v5 are told"
                                    + " apart by their version field.")
                    .flag("--listen", "HOST:PORT");

    public static final Key<Integer> UDP_SOCKETS_PER_LISTENER =
            Key.of("udp.sockets-per-listener", Types.integer(1, 64))
                    .defaultComputed(
                            () -> Math.max(1, Runtime.getRuntime().availableProcessors()),
                            "number of cores")
                    .doc(
                            "Sockets bound to each address with SO_REUSEPORT (epoll only; NIO binds"
                                    + " one), spread over event-loop threads.");

    public static final Key<Long> UDP_RECEIVE_BUFFER_BYTES =
            Key.of("udp.receive-buffer-bytes", Types.size(64 * 1024, Integer.MAX_VALUE))
                    .defaultValue(32L * 1024 * 1024)
                    .doc(
                            "SO_RCVBUF asked of the kernel (capped by net.core.rmem_max unless the"
                                    + " agent has CAP_NET_ADMIN).");

    public static final Key<Integer> UDP_MAX_DATAGRAM_BYTES =
            Key.of("udp.max-datagram-bytes", Types.integer(1_500, 65_535))
                    .defaultValue(65_535)
                    .doc(
                            "Receive buffer per datagram; 65535 never truncates (Netty's default 2048"
                                    + " would).");

    public static final Key<List<String>> UDP_ALLOWED_EXPORTERS =
            Key.of("udp.allowed-exporters", Types.list(Types.CIDR))
                    .defaultValue(List.of())
                    .defaultText("[] (all)")
                    .doc("Exporter prefixes admitted, e.g. 10.0.0.0/8; empty admits all.")
                    .flag("--allow", "CIDR");

    public static final Key<Boolean> UDP_FORWARD_REJECTED =
            Key.of("udp.forward-rejected", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc("Send datagrams that fail the header check to kafka.rejected-topic.");

    public static final Key<Boolean> UDP_NATIVE_TRANSPORT =
            Key.of("udp.native-transport", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc("Use epoll when available, else NIO.");

    public static final Key<Integer> UDP_DATAGRAMS_PER_READ =
            Key.of("udp.datagrams-per-read", Types.integer(1, 1024))
                    .defaultValue(16)
                    .doc(
                            "Datagrams one recvmmsg call may return (epoll); 1 uses recvmsg, one"
                                    + " datagram per system call.");

    public static final Key<Integer> UDP_MAX_EXPORTER_STREAMS =
            Key.of("udp.max-exporter-streams", Types.integer(1, 16_777_216))
                    .defaultValue(65_536)
                    .doc(
                            "Exporters each receive thread keeps a stamp stream for; beyond, the"
                                    + " least recently heard is forgotten and begins a new stream"
                                    + " when it returns (flowhouse_agent_stamp_streams_evicted_total).");

    public static final Key<String> KAFKA_BOOTSTRAP_SERVERS =
            Key.of("kafka.bootstrap-servers", Types.STRING)
                    .defaultValue("127.0.0.1:9092")
                    .check(s -> !s.isBlank(), "host:port[,host:port...]")
                    .doc("Kafka brokers, host:port[,host:port...].")
                    .flag("--bootstrap-servers", "LIST");

    public static final Key<String> KAFKA_RAW_TOPIC =
            Key.of("kafka.raw-topic", Types.STRING)
                    .defaultValue("flows.raw")
                    .doc("Topic for accepted datagrams.");

    public static final Key<String> KAFKA_REJECTED_TOPIC =
            Key.of("kafka.rejected-topic", Types.STRING)
                    .defaultValue("flows.rejected")
                    .doc("Topic for datagrams that failed the header check.");

    public static final Key<String> KAFKA_PACKETS_TOPIC =
            Key.of("kafka.packets-topic", Types.STRING)
                    .defaultValue("packets.raw")
                    .doc("Topic for packet summary batches.");

    public static final Key<String> KAFKA_COMPRESSION =
            Key.of("kafka.compression", Types.oneOf("none", "gzip", "snappy", "lz4", "zstd"))
                    .defaultValue("lz4")
                    .doc("Producer compression codec.");

    public static final Key<Duration> KAFKA_LINGER =
            Key.of("kafka.linger-ms", millis(Duration.ZERO, Duration.ofMinutes(1)))
                    .defaultValue(Duration.ofMillis(5))
                    .doc("Producer linger (a bare number is milliseconds).");

    public static final Key<Long> KAFKA_BATCH_BYTES =
            Key.of("kafka.batch-bytes", Types.size(1024, 64L * 1024 * 1024))
                    .defaultValue(1024L * 1024)
                    .doc("Producer batch size per partition.");

    public static final Key<Integer> KAFKA_RECORD_MAX_DATAGRAMS =
            Key.of("kafka.record-max-datagrams", Types.integer(1, 4096))
                    .defaultValue(64)
                    .doc(
                            "Datagrams of one exporter (one sFlow agent) the agent gathers into"
                                    + " one flows.raw record (a batch envelope, each datagram with"
                                    + " its own stamp), saving Kafka's per-record cost"
                                    + " (flowhouse_agent_kafka_batch_records_total); 1 writes"
                                    + " each datagram as its own record, for readers of flows.raw"
                                    + " that cannot split batches. 64: a busy exporter's records"
                                    + " then carry about 60 datagrams, which divides the"
                                    + " producer's and the broker's per-record CPU by as much"
                                    + " (capture-agent/BENCHMARKS.md); more gains little, since"
                                    + " what remains is per byte.");

    public static final Key<Long> KAFKA_RECORD_MAX_BYTES =
            Key.of("kafka.record-max-bytes", Types.size(1024, 4L * 1024 * 1024))
                    .defaultValue(256L * 1024)
                    .doc(
                            "Bytes of one batch record at most (below the producer's 8 MiB"
                                    + " max.request.size); a record is written before the next"
                                    + " datagram would pass it. 256 KiB holds 64 datagrams of a"
                                    + " 1,500-byte MTU with room to spare, and bounds the"
                                    + " batcher's memory at 256 KiB per exporter heard within one"
                                    + " linger.");

    public static final Key<Duration> KAFKA_RECORD_LINGER =
            Key.of("kafka.record-linger-ms", millis(Duration.ZERO, Duration.ofSeconds(1)))
                    .defaultValue(Duration.ofMillis(5))
                    .doc(
                            "How long a batch record waits for more datagrams of its exporter"
                                    + " when kafka.record-max-datagrams is above 1 (a bare number"
                                    + " is milliseconds). 5 ms: an exporter sending 12,000"
                                    + " datagrams/s or more fills its records to 64, a quiet one"
                                    + " waits at most 5 ms, nothing beside the job's 5 s"
                                    + " watermark delay.");

    public static final Key<Long> KAFKA_BUFFER_MEMORY_BYTES =
            Key.of("kafka.buffer-memory-bytes", Types.size(1024 * 1024, Long.MAX_VALUE))
                    .defaultValue(128L * 1024 * 1024)
                    .doc(
                            "Producer buffer, at least 8 x kafka.batch-bytes; when full, datagrams"
                                    + " go to the spool.");

    public static final Key<Duration> KAFKA_DELIVERY_TIMEOUT =
            Key.of(
                            "kafka.delivery-timeout-ms",
                            millis(Duration.ofSeconds(1), Duration.ofMillis(Integer.MAX_VALUE)))
                    .defaultValue(Duration.ofMinutes(2))
                    .doc(
                            "How long the producer retries one record before it is spooled again"
                                    + " (a bare number is milliseconds).");

    public static final Key<Map<String, String>> KAFKA_PROPERTIES =
            Key.of("kafka.properties", Types.PROPERTIES)
                    .defaultValue(Map.of())
                    .doc("Any other producer property, applied last.");

    public static final Key<Path> SPOOL_DIRECTORY =
            Key.of("spool.directory", Types.PATH)
                    .defaultValue(Path.of("flowhouse-spool"))
                    .doc("On-disk spool used while Kafka is unreachable (created if missing).")
                    .flag("--spool-dir", "DIR");

    public static final Key<Long> SPOOL_MAX_BYTES =
            Key.of("spool.max-bytes", Types.size(1024 * 1024, Long.MAX_VALUE))
                    .defaultValue(1024L * 1024 * 1024)
                    .doc(
                            "Bound on the spool's size on disk; beyond it datagrams are dropped and"
                                    + " counted.")
                    .flag("--spool-max-bytes", "BYTES");

    public static final Key<Long> SPOOL_SEGMENT_BYTES =
            Key.of("spool.segment-bytes", Types.size(64 * 1024, 1L << 30))
                    .defaultValue(64L * 1024 * 1024)
                    .doc(
                            "Size at which a segment file is closed, forced to disk (fsync) and a new"
                                    + " one begun.");

    public static final Key<Duration> SPOOL_SYNC_INTERVAL =
            Key.of("spool.sync-interval", millis(Duration.ZERO, Duration.ofHours(1)))
                    .defaultValue(Duration.ofSeconds(1))
                    .doc(
                            "How often the segment being written is forced to disk (fsync) while"
                                    + " records are spooled; a power loss loses at most this much."
                                    + " 0: only at segment rotation and shutdown.");

    public static final Key<Boolean> METRICS_ENABLED =
            Key.of("metrics.enabled", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc("Run the metrics endpoint (--no-metrics turns it off).");

    public static final Key<String> METRICS_HOST =
            Key.of("metrics.host", Types.STRING)
                    .defaultValue("127.0.0.1")
                    .doc("Metrics bind address; 0.0.0.0 (or an address) to scrape remotely.");

    public static final Key<Integer> METRICS_PORT =
            Key.of("metrics.port", Types.integer(0, 65_535))
                    .defaultValue(DEFAULT_METRICS_PORT)
                    .doc(
                            "Port of /metrics (Prometheus text) and /health; 0 takes any free port."
                                    + " The flag also turns metrics on.")
                    .flag("--metrics-port", "PORT");

    public static final Key<Integer> METRICS_MAX_EXPORTERS =
            Key.of("metrics.max-exporters", Types.integer(1, 1_000_000))
                    .defaultValue(1_000)
                    .doc(
                            "Exporter addresses with their own metric series; the traffic of others"
                                    + " is counted under exporter=\"other\""
                                    + " (flowhouse_agent_exporter_folded_datagrams_total).");

    public static final Key<Duration> METRICS_EXPORTER_TTL =
            Key.of(
                            "metrics.exporter-ttl",
                            Types.duration(ChronoUnit.SECONDS, Duration.ofSeconds(1), null))
                    .defaultValue(Duration.ofHours(1))
                    .doc(
                            "An exporter silent this long loses its metric series (and its place"
                                    + " under metrics.max-exporters).");

    public static final Key<Path> PACKETS_FILE =
            Key.of("packets.file", Types.PATH)
                    .defaultText("none")
                    .doc("pcap/pcapng file to read packets from.")
                    .flag("--pcap", "FILE");

    public static final Key<Double> PACKETS_SPEED =
            Key.of("packets.speed", SPEED)
                    .defaultValue(0.0)
                    .doc("Replay speed of a file: max (as fast as possible), 1x (recorded), Nx.")
                    .flag("--speed", "max|1x|Nx");

    public static final Key<String> PACKETS_INTERFACE =
            Key.of("packets.interface", Types.STRING)
                    .doc("Interface for live packet capture.")
                    .flag("--interface", "IF");

    public static final Key<String> PACKETS_FILTER =
            Key.of("packets.filter", Types.STRING)
                    .defaultValue("")
                    .doc("BPF filter for the live capture; empty captures all.")
                    .flag("--filter", "BPF");

    public static final Key<Integer> PACKETS_SNAPLEN =
            Key.of("packets.snaplen", Types.integer(64, 262_144))
                    .defaultValue(DEFAULT_SNAPLEN)
                    .doc("Bytes kept per packet (live): headers are all the summaries need.")
                    .flag("--snaplen", "N");

    public static final Key<Boolean> PACKETS_PROMISCUOUS =
            Key.of("packets.promiscuous", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc("Promiscuous mode (live).");

    public static final Key<Long> PACKETS_BUFFER_BYTES =
            Key.of("packets.buffer-bytes", Types.size(64 * 1024, Integer.MAX_VALUE))
                    .defaultValue(64L * 1024 * 1024)
                    .doc("libpcap ring (live): what absorbs bursts while the agent is busy.");

    public static final Key<Integer> PACKETS_INTERFACE_INDEX =
            Key.of("packets.interface-index", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(1)
                    .doc("Index recorded in every summary from this source.");

    public static final Key<Integer> PACKETS_BATCH_PACKETS =
            Key.of("packets.batch-packets", Types.integer(1, 1_000_000))
                    .defaultValue(1024)
                    .doc("Summaries per Kafka record (at most).");

    public static final Key<Duration> PACKETS_BATCH_LINGER =
            Key.of("packets.batch-linger-ms", millis(Duration.ofMillis(1), Duration.ofMinutes(1)))
                    .defaultValue(Duration.ofMillis(100))
                    .doc("Longest a partial batch waits before it is sent (a bare number is ms).");

    public static final Key<Duration> PACKETS_CLOCK_TICK =
            Key.of("packets.clock-tick-ms", millis(Duration.ofMillis(100), Duration.ofMinutes(10)))
                    .defaultValue(Duration.ofSeconds(1))
                    .doc(
                            "A live capture (or a partition of it) without packets for this long"
                                    + " sends a clock tick on the packets topic, so that the job"
                                    + " ends its flows on time while the interface is quiet (a"
                                    + " bare number is ms). A packet file ends with an"
                                    + " end-of-capture mark instead.");

    public static final ConfigSchema SCHEMA =
            ConfigSchema.of(
                    "flowhouse.agent",
                    "capture agent",
                    List.of(
                            AGENT_ID,
                            UDP_ENABLED,
                            UDP_LISTEN,
                            UDP_SOCKETS_PER_LISTENER,
                            UDP_RECEIVE_BUFFER_BYTES,
                            UDP_MAX_DATAGRAM_BYTES,
                            UDP_ALLOWED_EXPORTERS,
                            UDP_FORWARD_REJECTED,
                            UDP_NATIVE_TRANSPORT,
                            UDP_DATAGRAMS_PER_READ,
                            UDP_MAX_EXPORTER_STREAMS,
                            KAFKA_BOOTSTRAP_SERVERS,
                            KAFKA_RAW_TOPIC,
                            KAFKA_REJECTED_TOPIC,
                            KAFKA_PACKETS_TOPIC,
                            KAFKA_COMPRESSION,
                            KAFKA_LINGER,
                            KAFKA_BATCH_BYTES,
                            KAFKA_BUFFER_MEMORY_BYTES,
                            KAFKA_DELIVERY_TIMEOUT,
                            KAFKA_RECORD_MAX_DATAGRAMS,
                            KAFKA_RECORD_MAX_BYTES,
                            KAFKA_RECORD_LINGER,
                            KAFKA_PROPERTIES,
                            SPOOL_DIRECTORY,
                            SPOOL_MAX_BYTES,
                            SPOOL_SEGMENT_BYTES,
                            SPOOL_SYNC_INTERVAL,
                            METRICS_ENABLED,
                            METRICS_HOST,
                            METRICS_PORT,
                            METRICS_MAX_EXPORTERS,
                            METRICS_EXPORTER_TTL,
                            PACKETS_FILE,
                            PACKETS_SPEED,
                            PACKETS_INTERFACE,
                            PACKETS_FILTER,
                            PACKETS_SNAPLEN,
                            PACKETS_PROMISCUOUS,
                            PACKETS_BUFFER_BYTES,
                            PACKETS_INTERFACE_INDEX,
                            PACKETS_BATCH_PACKETS,
                            PACKETS_BATCH_LINGER,
                            PACKETS_CLOCK_TICK));

    private AgentKeys() {}

    /** The configuration with no file, environment or flags. */
    public static AgentConfig defaults() {
        return config(ConfigResolver.of(SCHEMA).resolve());
    }

    /** Defaults, then a YAML document (no environment). */
    public static AgentConfig fromYaml(String yaml) {
        return config(ConfigResolver.of(SCHEMA).yaml(yaml, "config").resolve());
    }

    /** The agent's record from resolved keys, with the checks that span keys. */
    public static AgentConfig config(Config c) {
        AgentConfig.Udp udp =
                new AgentConfig.Udp(
                        c.get(UDP_ENABLED),
                        c.get(UDP_LISTEN).stream()
                                .map(
                                        hp ->
                                                new AgentConfig.Listener(
                                                        hp.host().isEmpty() ? "::" : hp.host(),
                                                        hp.port()))
                                .toList(),
                        c.get(UDP_SOCKETS_PER_LISTENER),
                        c.get(UDP_RECEIVE_BUFFER_BYTES).intValue(),
                        c.get(UDP_MAX_DATAGRAM_BYTES),
                        c.get(UDP_ALLOWED_EXPORTERS),
                        c.get(UDP_FORWARD_REJECTED),
                        c.get(UDP_NATIVE_TRANSPORT),
                        c.get(UDP_DATAGRAMS_PER_READ),
                        c.get(UDP_MAX_EXPORTER_STREAMS));
        AgentConfig.Kafka kafka =
                new AgentConfig.Kafka(
                        c.get(KAFKA_BOOTSTRAP_SERVERS),
                        c.get(KAFKA_RAW_TOPIC),
                        c.get(KAFKA_REJECTED_TOPIC),
                        c.get(KAFKA_PACKETS_TOPIC),
                        c.get(KAFKA_COMPRESSION),
                        (int) c.get(KAFKA_LINGER).toMillis(),
                        c.get(KAFKA_BATCH_BYTES).intValue(),
                        c.get(KAFKA_BUFFER_MEMORY_BYTES),
                        c.get(KAFKA_DELIVERY_TIMEOUT),
                        c.get(KAFKA_PROPERTIES),
                        c.get(KAFKA_RECORD_MAX_DATAGRAMS),
                        c.get(KAFKA_RECORD_MAX_BYTES).intValue(),
                        c.get(KAFKA_RECORD_LINGER));
        if (kafka.batchBytes() * 8L > kafka.bufferMemoryBytes()) {
            // Each partition's open batch takes batch-bytes of the buffer: with too few, sends
            // fail for want of memory while the buffer is mostly empty.
            throw new ConfigException(
                    "config kafka.buffer-memory-bytes "
                            + kafka.bufferMemoryBytes()
                            + " must be at least 8 x kafka.batch-bytes ("
                            + kafka.batchBytes()
                            + "), from "
                            + c.origin(KAFKA_BUFFER_MEMORY_BYTES));
        }
        AgentConfig.Packets packets =
                new AgentConfig.Packets(
                        c.get(PACKETS_FILE),
                        c.get(PACKETS_SPEED),
                        c.get(PACKETS_INTERFACE),
                        c.get(PACKETS_FILTER),
                        c.get(PACKETS_SNAPLEN),
                        c.get(PACKETS_PROMISCUOUS),
                        c.get(PACKETS_BUFFER_BYTES).intValue(),
                        c.get(PACKETS_INTERFACE_INDEX),
                        c.get(PACKETS_BATCH_PACKETS),
                        c.get(PACKETS_BATCH_LINGER),
                        c.get(PACKETS_CLOCK_TICK));
        return new AgentConfig(
                c.get(AGENT_ID),
                udp,
                kafka,
                new AgentConfig.Spool(
                        c.get(SPOOL_DIRECTORY),
                        c.get(SPOOL_MAX_BYTES),
                        c.get(SPOOL_SEGMENT_BYTES),
                        c.get(SPOOL_SYNC_INTERVAL)),
                new AgentConfig.Metrics(
                        c.get(METRICS_ENABLED),
                        c.get(METRICS_HOST),
                        c.get(METRICS_PORT),
                        c.get(METRICS_MAX_EXPORTERS),
                        c.get(METRICS_EXPORTER_TTL),
                        // A one-shot file read next to a running agent must not fail for the
                        // default port; a port someone chose must be that port.
                        !c.isSet(METRICS_PORT)
                                && c.get(PACKETS_FILE) != null
                                && !c.get(UDP_ENABLED)),
                packets);
    }

    /**
     * Parses a replay speed: {@code max} (0, as fast as possible), {@code 1x}, {@code 2.5x} or a
     * plain number.
     */
    public static double parseSpeed(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("max") || t.equals("0")) {
            return 0.0;
        }
        if (t.endsWith("x")) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            double v = Double.parseDouble(t);
            if (v > 0 && Double.isFinite(v)) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("(expected: max, 1x, Nx)");
    }

    private static String speedText(double speed) {
        return speed == 0.0 ? "max" : (speed == Math.rint(speed) ? (long) speed + "" : speed) + "x";
    }

    private static ValueType<Duration> millis(Duration min, Duration max) {
        return Types.duration(ChronoUnit.MILLIS, min, max);
    }

    private static String defaultAgentId() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "flowhouse-agent";
        }
    }
}
