// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Configuration of the IPFIX re-export ({@link IpfixExporter}, {@link IpfixExporterSink}).
 * Immutable; {@link Builder#build()} validates.
 *
 * <p>Config keys (flag {@code --ipfix-to HOST:PORT[/tcp]}, repeatable, switches it on; off by
 * default):
 *
 * <ul>
 *   <li>{@code flowhouse.ipfix.targets}: collectors, {@code HOST:PORT} (UDP) or {@code
 *       HOST:PORT/tcp}; IPv6 as {@code [::1]:4739}.
 *   <li>{@code flowhouse.ipfix.max-message-bytes}: largest IPFIX message (the UDP payload), default
 *       1400 so a message fits a 1500-byte path; 512 where the path MTU is unknown (RFC 7011
 *       §10.3.3); up to 65507 over UDP (the largest IPv4 UDP payload; a collector on the same host,
 *       loopback MTU 65536, or a jumbo-frame path: 8960), 65535 over TCP. Bigger messages cost the
 *       exporter and the collector less CPU per record, but a message bigger than the path MTU is
 *       fragmented and lost whole when one fragment is.
 *   <li>{@code flowhouse.ipfix.template-refresh-interval} and {@code
 *       flowhouse.ipfix.template-refresh-messages}: over UDP templates are resent when either is
 *       reached (RFC 7011 §8.4); over TCP they are sent once per connection.
 *   <li>{@code flowhouse.ipfix.linger}: longest a partly filled message waits.
 *   <li>{@code flowhouse.ipfix.observation-domain-id}: -1 keeps each flow's own domain (templates
 *       and sequence numbers per domain), otherwise every flow goes out in this domain.
 *   <li>{@code flowhouse.ipfix.biflow}: {@code split} (default) sends an RFC 5103 biflow as two
 *       uniflows, which every collector counts; {@code rfc5103} keeps one record with the reverse
 *       counters in PEN 29305 IEs (nfcapd and IPFIXcol2 read them, goflow2 and pmacct ignore them).
 *   <li>{@code flowhouse.ipfix.tcp.reconnect-backoff-min|max}: exponential backoff between TCP
 *       connection attempts; flows for a disconnected collector are dropped and counted.
 *   <li>{@code flowhouse.ipfix.tcp.write-timeout}: longest a TCP collector may take nothing before
 *       the connection is dropped (counted in {@code write_timeouts}) and made again with backoff.
 *   <li>{@code flowhouse.ipfix.queue-capacity}: flows between the Flink writer and each target's
 *       sender thread; when full, flows are dropped and counted ({@code queue_dropped}), so a slow
 *       or stalled collector never stalls the job.
 *   <li>{@code flowhouse.ipfix.max-domains}: observation domains with their own message, templates
 *       and sequence number per target; the least recently used one is sent and forgotten when a
 *       new one comes past the limit (counted in {@code domains_evicted}; it starts again with
 *       templates and sequence 0 if it comes back).
 *   <li>{@code flowhouse.ipfix.send-buffer-bytes}: socket send buffer.
 *   <li>{@code flowhouse.ipfix.max-messages-per-second}: pacing per target, 0 (default) unpaced.
 * </ul>
 */
public final class IpfixExporterOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    /** RFC 7011 §10.3.3: the limit when the path MTU is unknown. */
    public static final int MIN_MESSAGE_BYTES = 512;

    /** The IPFIX header's 16-bit length. */
    public static final int MAX_MESSAGE_BYTES = 65_535;

    /** The largest UDP payload over IPv4 (65,535 - 20 - 8); nfcapd reads up to 65,535. */
    public static final int MAX_UDP_MESSAGE_BYTES = 65_507;

    /** How to export RFC 5103 biflows. */
    public enum BiflowMode {
        /** Two uniflows: forward, and reverse with addresses, ports and interfaces swapped. */
        SPLIT,
        /** One record with reverseOctetDeltaCount/reversePacketDeltaCount (PEN 29305). */
        RFC5103;

        public static BiflowMode parse(String s) {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        }
    }

    /** Transport of one collector. */
    public enum Transport {
        UDP,
        TCP
    }

    /**
     * One collector.
     *
     * @param host name or address literal
     * @param port UDP/TCP port
     * @param transport UDP or TCP
     */
    public record Target(String host, int port, Transport transport) implements Serializable {

        /** Parses {@code HOST:PORT}, {@code HOST:PORT/tcp}, {@code [v6]:PORT[/udp|/tcp]}. */
        public static Target parse(String spec) {
            String s = spec.trim();
            Transport t = Transport.UDP;
            int slash = s.lastIndexOf('/');
            if (slash >= 0) {
                String proto = s.substring(slash + 1).toLowerCase(Locale.ROOT);
                if (!proto.equals("tcp") && !proto.equals("udp")) {
                    throw new IllegalArgumentException(
                            "ipfix target " + spec + " (expected: HOST:PORT[/tcp|/udp])");
                }
                t = proto.equals("tcp") ? Transport.TCP : Transport.UDP;
                s = s.substring(0, slash);
            }
            int colon = s.lastIndexOf(':');
            if (colon <= 0 || colon == s.length() - 1) {
                throw new IllegalArgumentException(
                        "ipfix target " + spec + " (expected: HOST:PORT[/tcp])");
            }
            String host = s.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(s.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "ipfix target " + spec + " has a bad port (expected: 1..65535)", e);
            }
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException(
                        "ipfix target " + spec + " port " + port + " (expected: 1..65535)");
            }
            return new Target(host, port, t);
        }

        @Override
        public String toString() {
            String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
            return h + ":" + port + (transport == Transport.TCP ? "/tcp" : "");
        }
    }

    private final List<Target> targets;
    private final int maxMessageBytes;
    private final Duration templateRefreshInterval;
    private final int templateRefreshMessages;
    private final Duration linger;
    private final long observationDomainId;
    private final BiflowMode biflowMode;
    private final Duration reconnectBackoffMin;
    private final Duration reconnectBackoffMax;
    private final int sendBufferBytes;
    private final int maxMessagesPerSecond;
    private final Duration writeTimeout;
    private final int queueCapacity;
    private final int maxDomains;

    private IpfixExporterOptions(Builder b) {
        this.targets = List.copyOf(b.targets);
        this.maxMessageBytes = b.maxMessageBytes;
        this.templateRefreshInterval = b.templateRefreshInterval;
        this.templateRefreshMessages = b.templateRefreshMessages;
        this.linger = b.linger;
        this.observationDomainId = b.observationDomainId;
        this.biflowMode = b.biflowMode;
        this.reconnectBackoffMin = b.reconnectBackoffMin;
        this.reconnectBackoffMax = b.reconnectBackoffMax;
        this.sendBufferBytes = b.sendBufferBytes;
        this.maxMessagesPerSecond = b.maxMessagesPerSecond;
        this.writeTimeout = b.writeTimeout;
        this.queueCapacity = b.queueCapacity;
        this.maxDomains = b.maxDomains;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The config key that switches the sink on ({@code --ipfix-to}, repeatable). */
    public static final String TARGETS_KEY = "flowhouse.ipfix.targets";

    /**
     * Options from flat configuration keys ({@code flowhouse.ipfix.*}, listed in the class comment;
     * {@value #TARGETS_KEY} is comma-separated), or null when no target is set: the sink is off by
     * default.
     *
     * @throws IllegalArgumentException naming the first bad key
     */
    public static IpfixExporterOptions fromConfig(java.util.Map<String, String> config) {
        io.flowhouse.sinks.zmq.SinkConfigValues c =
                new io.flowhouse.sinks.zmq.SinkConfigValues(config);
        String targets = c.string(TARGETS_KEY);
        if (targets == null) {
            return null;
        }
        Builder b = builder();
        for (String t : targets.split(",")) {
            if (!t.isBlank()) {
                b.target(t);
            }
        }
        Builder d = new Builder();
        b.maxMessageBytes(c.intValue("flowhouse.ipfix.max-message-bytes", d.maxMessageBytes))
                .templateRefreshInterval(
                        c.duration(
                                "flowhouse.ipfix.template-refresh-interval",
                                d.templateRefreshInterval))
                .templateRefreshMessages(
                        c.intValue(
                                "flowhouse.ipfix.template-refresh-messages",
                                d.templateRefreshMessages))
                .linger(c.duration("flowhouse.ipfix.linger", d.linger))
                .observationDomainId(
                        c.longValue("flowhouse.ipfix.observation-domain-id", d.observationDomainId))
                .reconnectBackoff(
                        c.duration(
                                "flowhouse.ipfix.tcp.reconnect-backoff-min", d.reconnectBackoffMin),
                        c.duration(
                                "flowhouse.ipfix.tcp.reconnect-backoff-max", d.reconnectBackoffMax))
                .sendBufferBytes(c.intValue("flowhouse.ipfix.send-buffer-bytes", d.sendBufferBytes))
                .maxMessagesPerSecond(
                        c.intValue(
                                "flowhouse.ipfix.max-messages-per-second", d.maxMessagesPerSecond))
                .writeTimeout(c.duration("flowhouse.ipfix.tcp.write-timeout", d.writeTimeout))
                .queueCapacity(c.intValue("flowhouse.ipfix.queue-capacity", d.queueCapacity))
                .maxDomains(c.intValue("flowhouse.ipfix.max-domains", d.maxDomains));
        if (c.has("flowhouse.ipfix.biflow")) {
            b.biflowMode(BiflowMode.parse(c.string("flowhouse.ipfix.biflow")));
        }
        return b.build();
    }

    /** Defaults for the given {@code HOST:PORT[/tcp]} targets. */
    public static IpfixExporterOptions forTargets(String... targets) {
        Builder b = builder();
        for (String t : targets) {
            b.target(t);
        }
        return b.build();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.targets.addAll(targets);
        b.maxMessageBytes = maxMessageBytes;
        b.templateRefreshInterval = templateRefreshInterval;
        b.templateRefreshMessages = templateRefreshMessages;
        b.linger = linger;
        b.observationDomainId = observationDomainId;
        b.biflowMode = biflowMode;
        b.reconnectBackoffMin = reconnectBackoffMin;
        b.reconnectBackoffMax = reconnectBackoffMax;
        b.sendBufferBytes = sendBufferBytes;
        b.maxMessagesPerSecond = maxMessagesPerSecond;
        b.writeTimeout = writeTimeout;
        b.queueCapacity = queueCapacity;
        b.maxDomains = maxDomains;
        return b;
    }

    public List<Target> targets() {
        return targets;
    }

    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    public Duration templateRefreshInterval() {
        return templateRefreshInterval;
    }

    public int templateRefreshMessages() {
        return templateRefreshMessages;
    }

    public Duration linger() {
        return linger;
    }

    /** The fixed observation domain, or -1 to keep each flow's own. */
    public long observationDomainId() {
        return observationDomainId;
    }

    public BiflowMode biflowMode() {
        return biflowMode;
    }

    public Duration reconnectBackoffMin() {
        return reconnectBackoffMin;
    }

    public Duration reconnectBackoffMax() {
        return reconnectBackoffMax;
    }

    public int sendBufferBytes() {
        return sendBufferBytes;
    }

    /** Pacing of messages per target, 0 for none. */
    public int maxMessagesPerSecond() {
        return maxMessagesPerSecond;
    }

    /** Longest a TCP collector may take nothing before the connection is dropped. */
    public Duration writeTimeout() {
        return writeTimeout;
    }

    /** Flows queued per target between the Flink writer and the sender thread. */
    public int queueCapacity() {
        return queueCapacity;
    }

    /** Observation domains kept per target (message, templates, sequence number). */
    public int maxDomains() {
        return maxDomains;
    }

    @Override
    public String toString() {
        return "IpfixExporterOptions{targets="
                + targets
                + ", maxMessageBytes="
                + maxMessageBytes
                + ", templateRefresh="
                + templateRefreshInterval
                + "/"
                + templateRefreshMessages
                + " messages, biflow="
                + biflowMode
                + "}";
    }

    /** Mutable builder. */
    public static final class Builder {
        private final List<Target> targets = new ArrayList<>();
        private int maxMessageBytes = 1400;
        private Duration templateRefreshInterval = Duration.ofSeconds(60);
        private int templateRefreshMessages = 1000;
        private Duration linger = Duration.ofMillis(500);
        private long observationDomainId = -1;
        private BiflowMode biflowMode = BiflowMode.SPLIT;
        private Duration reconnectBackoffMin = Duration.ofMillis(100);
        private Duration reconnectBackoffMax = Duration.ofSeconds(10);
        private int sendBufferBytes = 4 << 20;
        private int maxMessagesPerSecond = 0;
        private Duration writeTimeout = Duration.ofSeconds(5);
        private int queueCapacity = 16_384;
        private int maxDomains = 1_024;

        private Builder() {}

        public Builder writeTimeout(Duration v) {
            this.writeTimeout = v;
            return this;
        }

        public Builder queueCapacity(int v) {
            this.queueCapacity = v;
            return this;
        }

        public Builder maxDomains(int v) {
            this.maxDomains = v;
            return this;
        }

        /**
         * Paces the messages to each target (0: as fast as the socket takes them). Collectors with
         * a small receive buffer (goflow2 keeps the kernel default) lose bursts; the writer waits
         * instead.
         */
        public Builder maxMessagesPerSecond(int v) {
            this.maxMessagesPerSecond = v;
            return this;
        }

        /** Adds {@code HOST:PORT[/tcp]}. */
        public Builder target(String spec) {
            targets.add(Target.parse(spec));
            return this;
        }

        public Builder target(Target t) {
            targets.add(Objects.requireNonNull(t, "target"));
            return this;
        }

        public Builder maxMessageBytes(int v) {
            this.maxMessageBytes = v;
            return this;
        }

        public Builder templateRefreshInterval(Duration v) {
            this.templateRefreshInterval = v;
            return this;
        }

        public Builder templateRefreshMessages(int v) {
            this.templateRefreshMessages = v;
            return this;
        }

        public Builder linger(Duration v) {
            this.linger = v;
            return this;
        }

        public Builder observationDomainId(long v) {
            this.observationDomainId = v;
            return this;
        }

        public Builder biflowMode(BiflowMode v) {
            this.biflowMode = v;
            return this;
        }

        public Builder reconnectBackoff(Duration min, Duration max) {
            this.reconnectBackoffMin = min;
            this.reconnectBackoffMax = max;
            return this;
        }

        public Builder sendBufferBytes(int v) {
            this.sendBufferBytes = v;
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first bad value
         */
        public IpfixExporterOptions build() {
            check(!targets.isEmpty(), "targets", targets, "at least one HOST:PORT[/tcp]");
            check(
                    maxMessageBytes >= MIN_MESSAGE_BYTES && maxMessageBytes <= MAX_MESSAGE_BYTES,
                    "max-message-bytes",
                    maxMessageBytes,
                    MIN_MESSAGE_BYTES + ".." + MAX_MESSAGE_BYTES);
            check(
                    maxMessageBytes <= MAX_UDP_MESSAGE_BYTES
                            || targets.stream().noneMatch(t -> t.transport() == Transport.UDP),
                    "max-message-bytes",
                    maxMessageBytes,
                    "at most " + MAX_UDP_MESSAGE_BYTES + " with a UDP target");
            check(
                    !templateRefreshInterval.isNegative() && !templateRefreshInterval.isZero(),
                    "template-refresh-interval",
                    templateRefreshInterval,
                    "a positive duration");
            check(
                    templateRefreshMessages >= 1,
                    "template-refresh-messages",
                    templateRefreshMessages,
                    ">= 1");
            check(!linger.isNegative() && !linger.isZero(), "linger", linger, "> 0");
            check(
                    observationDomainId >= -1 && observationDomainId <= 0xffff_ffffL,
                    "observation-domain-id",
                    observationDomainId,
                    "-1 or a uint32");
            check(
                    !reconnectBackoffMin.isNegative()
                            && !reconnectBackoffMin.isZero()
                            && reconnectBackoffMax.compareTo(reconnectBackoffMin) >= 0,
                    "tcp.reconnect-backoff",
                    reconnectBackoffMin + ".." + reconnectBackoffMax,
                    "0 < min <= max");
            check(sendBufferBytes >= 0, "send-buffer-bytes", sendBufferBytes, ">= 0");
            check(
                    maxMessagesPerSecond >= 0,
                    "max-messages-per-second",
                    maxMessagesPerSecond,
                    ">= 0 (0: unpaced)");
            check(
                    !writeTimeout.isNegative() && !writeTimeout.isZero(),
                    "tcp.write-timeout",
                    writeTimeout,
                    "a positive duration");
            check(
                    queueCapacity >= 1 && queueCapacity <= 1 << 24,
                    "queue-capacity",
                    queueCapacity,
                    "1.." + (1 << 24));
            check(maxDomains >= 1, "max-domains", maxDomains, ">= 1");
            return new IpfixExporterOptions(this);
        }

        private static void check(boolean ok, String key, Object value, String expected) {
            if (!ok) {
                throw new IllegalArgumentException(
                        "flowhouse.ipfix." + key + " = " + value + " (expected: " + expected + ")");
            }
        }
    }
}
