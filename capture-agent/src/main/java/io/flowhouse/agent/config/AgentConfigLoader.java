// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Builds an {@link AgentConfig}: documented defaults, then a YAML file, then command-line flags.
 * Unknown YAML keys and bad values fail with a message naming the key (a typo must not silently
 * leave a default in place). The defaults, with every key, are in {@code capture-agent/README.md}
 * and {@code capture-agent/src/main/resources/flowhouse-agent.yaml}.
 */
public final class AgentConfigLoader {

    /** Default NetFlow v5/v9 port. */
    public static final int NETFLOW_PORT = 2055;

    /** Default IPFIX port (IANA). */
    public static final int IPFIX_PORT = 4739;

    /** Default metrics port. */
    public static final int METRICS_PORT = 9464;

    private static final String USAGE =
            String.join(
                    "\n",
                    "usage: flowhouse agent [--config FILE] [options]",
                    "  --config FILE             YAML config (defaults: capture-agent/README.md)",
                    "  --agent-id ID             agent identity in every envelope (default: host"
                            + " name)",
                    "  --listen HOST:PORT        UDP listen address, repeatable (default [::]:2055"
                            + " and [::]:4739)",
                    "  --allow CIDR              admit only these exporters, repeatable",
                    "  --bootstrap-servers LIST  Kafka brokers (default 127.0.0.1:9092)",
                    "  --spool-dir DIR           on-disk spool (default ./flowhouse-spool)",
                    "  --spool-max-bytes N       spool bound in bytes (default 1 GiB)",
                    "  --metrics-port N          Prometheus /metrics and /health (default 9464; 0"
                            + " any free port)",
                    "  --no-metrics              no metrics endpoint",
                    "  --pcap FILE               read packets from a pcap/pcapng file",
                    "  --speed max|1x|Nx         file replay speed (default max)",
                    "  --interface IF            live packet capture on an interface",
                    "  --filter BPF              BPF filter for the live capture",
                    "  --snaplen N               live capture snap length (default 256: headers only)",
                    "  --with-udp                keep the UDP listeners when capturing packets",
                    "  --no-udp                  no UDP listeners");

    /**
     * Live capture snap length: summaries read headers only, and 256 bytes hold Ethernet, two VLAN
     * tags, IPv6 with extension headers and TCP with options. A full snap length fills libpcap's
     * ring with payload (64 KiB per packet for TCP over loopback) and it then drops packets sooner.
     */
    public static final int DEFAULT_SNAPLEN = 256;

    private AgentConfigLoader() {}

    /** Usage text for {@code --help}. */
    public static String usage() {
        return USAGE;
    }

    /** The configuration with no file and no flags. */
    public static AgentConfig defaults() {
        return new AgentConfig(
                defaultAgentId(),
                new AgentConfig.Udp(
                        true,
                        List.of(
                                new AgentConfig.Listener("::", NETFLOW_PORT),
                                new AgentConfig.Listener("::", IPFIX_PORT)),
                        Math.max(1, Runtime.getRuntime().availableProcessors()),
                        32 * 1024 * 1024,
                        65_535,
                        List.of(),
                        true,
                        true,
                        16),
                new AgentConfig.Kafka(
                        "127.0.0.1:9092",
                        "flows.raw",
                        "flows.rejected",
                        "packets.raw",
                        "lz4",
                        5,
                        1024 * 1024,
                        128L * 1024 * 1024,
                        Duration.ofMinutes(2),
                        Map.of()),
                new AgentConfig.Spool(
                        Path.of("flowhouse-spool"), 1024L * 1024 * 1024, 64L * 1024 * 1024),
                new AgentConfig.Metrics(true, "127.0.0.1", METRICS_PORT),
                new AgentConfig.Packets(
                        null,
                        0.0,
                        null,
                        "",
                        DEFAULT_SNAPLEN,
                        true,
                        64 * 1024 * 1024,
                        1,
                        1024,
                        Duration.ofMillis(100)));
    }

    /**
     * Loads the configuration from command-line arguments ({@code --config FILE} first, then the
     * other flags override the file).
     *
     * @throws IllegalArgumentException with a message for the user on any bad flag or key
     */
    public static AgentConfig fromArgs(String[] args) throws IOException {
        Map<String, List<String>> flags = parseFlags(args);
        AgentConfig config = defaults();
        List<String> file = flags.remove("config");
        if (file != null) {
            config = fromYaml(config, Files.readString(Path.of(file.get(0))));
        }
        return applyFlags(config, flags);
    }

    /** Applies a YAML document on top of {@code base}. */
    @SuppressWarnings("unchecked")
    public static AgentConfig fromYaml(AgentConfig base, String yaml) throws IOException {
        Object root = new ObjectMapper(new YAMLFactory()).readValue(yaml, Object.class);
        if (root == null) {
            return base;
        }
        if (!(root instanceof Map)) {
            throw new IllegalArgumentException("config: expected a mapping at the top level");
        }
        Section top = new Section("", (Map<String, Object>) root);
        Section agent = top.section("agent");
        Section udpS = top.section("udp");
        Section kafkaS = top.section("kafka");
        Section spoolS = top.section("spool");
        Section metricsS = top.section("metrics");
        Section packetsS = top.section("packets");
        top.finish();

        String agentId = agent.string("id", base.agentId());
        agent.finish();

        AgentConfig.Udp u = base.udp();
        List<AgentConfig.Listener> listeners = u.listeners();
        List<String> listen = udpS.strings("listen", null);
        if (listen != null) {
            listeners = new ArrayList<>();
            for (String l : listen) {
                listeners.add(parseListener(l));
            }
        }
        AgentConfig.Udp udp =
                new AgentConfig.Udp(
                        udpS.bool("enabled", u.enabled()),
                        List.copyOf(listeners),
                        udpS.integer("sockets-per-listener", u.socketsPerListener(), 1, 64),
                        udpS.integer(
                                "receive-buffer-bytes",
                                u.receiveBufferBytes(),
                                64 * 1024,
                                Integer.MAX_VALUE),
                        udpS.integer("max-datagram-bytes", u.maxDatagramBytes(), 1_500, 65_535),
                        validateCidrs(udpS.strings("allowed-exporters", u.allowedExporters())),
                        udpS.bool("forward-rejected", u.forwardRejected()),
                        udpS.bool("native-transport", u.nativeTransport()),
                        udpS.integer("datagrams-per-read", u.datagramsPerRead(), 1, 1024));
        udpS.finish();

        AgentConfig.Kafka k = base.kafka();
        Map<String, String> props = new LinkedHashMap<>(k.properties());
        Section extra = kafkaS.section("properties");
        for (String key : new ArrayList<>(extra.keys())) {
            props.put(key, extra.string(key, null));
        }
        extra.finish();
        AgentConfig.Kafka kafka =
                new AgentConfig.Kafka(
                        kafkaS.string("bootstrap-servers", k.bootstrapServers()),
                        kafkaS.string("raw-topic", k.rawTopic()),
                        kafkaS.string("rejected-topic", k.rejectedTopic()),
                        kafkaS.string("packets-topic", k.packetsTopic()),
                        kafkaS.string("compression", k.compression()),
                        kafkaS.integer("linger-ms", k.lingerMs(), 0, 60_000),
                        kafkaS.integer("batch-bytes", k.batchBytes(), 1024, 64 * 1024 * 1024),
                        kafkaS.longValue(
                                "buffer-memory-bytes",
                                k.bufferMemoryBytes(),
                                1024 * 1024,
                                Long.MAX_VALUE),
                        Duration.ofMillis(
                                kafkaS.longValue(
                                        "delivery-timeout-ms",
                                        k.deliveryTimeout().toMillis(),
                                        1_000,
                                        Integer.MAX_VALUE)),
                        Map.copyOf(props));
        kafkaS.finish();
        if (kafka.batchBytes() * 8L > kafka.bufferMemoryBytes()) {
            // Each partition's open batch takes batch-bytes of the buffer: with too few, sends
            // fail for want of memory while the buffer is mostly empty.
            throw new IllegalArgumentException(
                    "config kafka.buffer-memory-bytes "
                            + kafka.bufferMemoryBytes()
                            + " must be at least 8 x kafka.batch-bytes ("
                            + kafka.batchBytes()
                            + ")");
        }

        AgentConfig.Spool s = base.spool();
        AgentConfig.Spool spool =
                new AgentConfig.Spool(
                        Path.of(spoolS.string("directory", s.directory().toString())),
                        spoolS.longValue("max-bytes", s.maxBytes(), 1024 * 1024, Long.MAX_VALUE),
                        spoolS.longValue("segment-bytes", s.segmentBytes(), 64 * 1024, 1L << 30));
        spoolS.finish();

        AgentConfig.Metrics m = base.metrics();
        AgentConfig.Metrics metrics =
                new AgentConfig.Metrics(
                        metricsS.bool("enabled", m.enabled()),
                        metricsS.string("host", m.host()),
                        metricsS.integer("port", m.port(), 0, 65_535));
        metricsS.finish();

        AgentConfig.Packets p = base.packets();
        String fileName = packetsS.string("file", p.file() == null ? null : p.file().toString());
        AgentConfig.Packets packets =
                new AgentConfig.Packets(
                        fileName == null ? null : Path.of(fileName),
                        parseSpeed(packetsS.string("speed", speedText(p.speed()))),
                        packetsS.string("interface", p.interfaceName()),
                        packetsS.string("filter", p.filter()),
                        packetsS.integer("snaplen", p.snaplen(), 64, 262_144),
                        packetsS.bool("promiscuous", p.promiscuous()),
                        packetsS.integer(
                                "buffer-bytes", p.bufferBytes(), 64 * 1024, Integer.MAX_VALUE),
                        packetsS.integer(
                                "interface-index", p.interfaceIndex(), 0, Integer.MAX_VALUE),
                        packetsS.integer("batch-packets", p.batchPackets(), 1, 1_000_000),
                        Duration.ofMillis(
                                packetsS.longValue(
                                        "batch-linger-ms", p.batchLinger().toMillis(), 1, 60_000)));
        packetsS.finish();
        return new AgentConfig(agentId, udp, kafka, spool, metrics, packets);
    }

    private static AgentConfig applyFlags(AgentConfig c, Map<String, List<String>> flags) {
        String agentId = last(flags, "agent-id", c.agentId());
        AgentConfig.Udp u = c.udp();
        List<AgentConfig.Listener> listeners = u.listeners();
        if (flags.containsKey("listen")) {
            listeners = new ArrayList<>();
            for (String l : flags.get("listen")) {
                listeners.add(parseListener(l));
            }
        }
        List<String> allowed =
                flags.containsKey("allow")
                        ? validateCidrs(flags.get("allow"))
                        : u.allowedExporters();
        AgentConfig.Packets p = c.packets();
        String pcap = last(flags, "pcap", null);
        String iface = last(flags, "interface", null);
        AgentConfig.Packets packets =
                new AgentConfig.Packets(
                        pcap != null ? Path.of(pcap) : p.file(),
                        flags.containsKey("speed")
                                ? parseSpeed(last(flags, "speed", ""))
                                : p.speed(),
                        iface != null ? iface : p.interfaceName(),
                        last(flags, "filter", p.filter()),
                        flags.containsKey("snaplen")
                                ? parseInt("--snaplen", last(flags, "snaplen", ""))
                                : p.snaplen(),
                        p.promiscuous(),
                        p.bufferBytes(),
                        p.interfaceIndex(),
                        p.batchPackets(),
                        p.batchLinger());
        boolean udpEnabled = u.enabled();
        if (pcap != null || iface != null) {
            // The packet path on the command line runs alone unless asked otherwise.
            udpEnabled = flags.containsKey("with-udp");
        }
        if (flags.containsKey("no-udp")) {
            udpEnabled = false;
        }
        if (flags.containsKey("with-udp")) {
            udpEnabled = true;
        }
        AgentConfig.Udp udp =
                new AgentConfig.Udp(
                        udpEnabled,
                        List.copyOf(listeners),
                        u.socketsPerListener(),
                        u.receiveBufferBytes(),
                        u.maxDatagramBytes(),
                        allowed,
                        u.forwardRejected(),
                        u.nativeTransport(),
                        u.datagramsPerRead());
        AgentConfig.Kafka k = c.kafka();
        AgentConfig.Kafka kafka =
                new AgentConfig.Kafka(
                        last(flags, "bootstrap-servers", k.bootstrapServers()),
                        k.rawTopic(),
                        k.rejectedTopic(),
                        k.packetsTopic(),
                        k.compression(),
                        k.lingerMs(),
                        k.batchBytes(),
                        k.bufferMemoryBytes(),
                        k.deliveryTimeout(),
                        k.properties());
        AgentConfig.Spool s = c.spool();
        AgentConfig.Spool spool =
                new AgentConfig.Spool(
                        Path.of(last(flags, "spool-dir", s.directory().toString())),
                        flags.containsKey("spool-max-bytes")
                                ? parseLong("--spool-max-bytes", last(flags, "spool-max-bytes", ""))
                                : s.maxBytes(),
                        s.segmentBytes());
        AgentConfig.Metrics m = c.metrics();
        AgentConfig.Metrics metrics = m;
        if (flags.containsKey("metrics-port")) {
            int port = parseInt("--metrics-port", last(flags, "metrics-port", ""));
            metrics = new AgentConfig.Metrics(true, m.host(), port);
        }
        if (flags.containsKey("no-metrics")) {
            metrics = new AgentConfig.Metrics(false, m.host(), m.port());
        }
        for (String known :
                List.of(
                        "agent-id",
                        "listen",
                        "allow",
                        "pcap",
                        "interface",
                        "speed",
                        "filter",
                        "snaplen",
                        "with-udp",
                        "no-udp",
                        "bootstrap-servers",
                        "spool-dir",
                        "spool-max-bytes",
                        "metrics-port",
                        "no-metrics")) {
            flags.remove(known);
        }
        if (!flags.isEmpty()) {
            throw new IllegalArgumentException(
                    "unknown option --" + flags.keySet().iterator().next() + "\n" + USAGE);
        }
        if (!udp.enabled() && !packets.enabled()) {
            throw new IllegalArgumentException(
                    "nothing to do: UDP listeners are off and no --pcap or --interface given");
        }
        return new AgentConfig(agentId, udp, kafka, spool, metrics, packets);
    }

    private static final Set<String> SWITCHES = Set.of("with-udp", "no-udp", "no-metrics");

    private static Map<String, List<String>> parseFlags(String[] args) {
        Map<String, List<String>> flags = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals("-h") || a.equals("--help")) {
                throw new HelpRequestedException(USAGE);
            }
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + a + "\n" + USAGE);
            }
            String name = a.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (SWITCHES.contains(name)) {
                value = "true";
            } else {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option --" + name + " needs a value");
                }
                value = args[++i];
            }
            flags.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
        return flags;
    }

    private static String last(Map<String, List<String>> flags, String name, String otherwise) {
        List<String> v = flags.get(name);
        return v == null ? otherwise : v.get(v.size() - 1);
    }

    /** Parses {@code HOST:PORT}, {@code [V6]:PORT} or {@code :PORT} (all addresses). */
    public static AgentConfig.Listener parseListener(String text) {
        String host;
        String port;
        if (text.startsWith("[")) {
            int close = text.indexOf("]:");
            if (close < 0) {
                throw new IllegalArgumentException(
                        "listen address " + text + " (expected [V6]:PORT)");
            }
            host = text.substring(1, close);
            port = text.substring(close + 2);
        } else {
            int colon = text.lastIndexOf(':');
            if (colon < 0 || text.indexOf(':') != colon) {
                throw new IllegalArgumentException(
                        "listen address " + text + " (expected HOST:PORT, [V6]:PORT or :PORT)");
            }
            host = colon == 0 ? "::" : text.substring(0, colon);
            port = text.substring(colon + 1);
        }
        int p = parseInt("listen port", port);
        if (p < 0 || p > 65_535) {
            throw new IllegalArgumentException("listen port " + p + " (expected: 0..65535)");
        }
        return new AgentConfig.Listener(host, p);
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
        throw new IllegalArgumentException("speed " + text + " (expected: max, 1x, Nx)");
    }

    private static String speedText(double speed) {
        return speed == 0.0 ? "max" : speed + "x";
    }

    private static List<String> validateCidrs(List<String> cidrs) {
        for (String c : cidrs) {
            CidrSet.parse(c);
        }
        return List.copyOf(cidrs);
    }

    private static int parseInt(String what, String text) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": not an integer: " + text, e);
        }
    }

    private static long parseLong(String what, String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + ": not an integer: " + text, e);
        }
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

    /** Thrown for {@code --help}: the message is the usage text. */
    public static final class HelpRequestedException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        HelpRequestedException(String usage) {
            super(usage);
        }
    }

    /** A YAML mapping whose keys are checked off as they are read. */
    private static final class Section {
        private final String path;
        private final Map<String, Object> values;
        private final Set<String> seen = new HashSet<>();

        Section(String path, Map<String, Object> values) {
            this.path = path;
            this.values = values == null ? Map.of() : values;
        }

        Set<String> keys() {
            return values.keySet();
        }

        private String name(String key) {
            return path.isEmpty() ? key : path + "." + key;
        }

        private Object get(String key) {
            seen.add(key);
            return values.get(key);
        }

        @SuppressWarnings("unchecked")
        Section section(String key) {
            Object v = get(key);
            if (v != null && !(v instanceof Map)) {
                throw new IllegalArgumentException("config " + name(key) + ": expected a mapping");
            }
            return new Section(name(key), (Map<String, Object>) v);
        }

        String string(String key, String otherwise) {
            Object v = get(key);
            return v == null ? otherwise : v.toString();
        }

        boolean bool(String key, boolean otherwise) {
            Object v = get(key);
            if (v == null) {
                return otherwise;
            }
            if (v instanceof Boolean b) {
                return b;
            }
            throw new IllegalArgumentException("config " + name(key) + ": expected true or false");
        }

        int integer(String key, int otherwise, int min, int max) {
            return (int) longValue(key, otherwise, min, max);
        }

        long longValue(String key, long otherwise, long min, long max) {
            Object v = get(key);
            if (v == null) {
                return otherwise;
            }
            long n;
            if (v instanceof Number num) {
                n = num.longValue();
            } else {
                throw new IllegalArgumentException("config " + name(key) + ": expected a number");
            }
            if (n < min || n > max) {
                throw new IllegalArgumentException(
                        "config "
                                + name(key)
                                + " = "
                                + n
                                + " (expected: "
                                + min
                                + ".."
                                + max
                                + ")");
            }
            return n;
        }

        List<String> strings(String key, List<String> otherwise) {
            Object v = get(key);
            if (v == null) {
                return otherwise;
            }
            if (!(v instanceof List<?> list)) {
                throw new IllegalArgumentException("config " + name(key) + ": expected a list");
            }
            List<String> out = new ArrayList<>();
            for (Object o : list) {
                out.add(String.valueOf(o));
            }
            return out;
        }

        void finish() {
            for (String key : values.keySet()) {
                if (!seen.contains(key)) {
                    throw new IllegalArgumentException("config: unknown key " + name(key));
                }
            }
        }
    }
}
