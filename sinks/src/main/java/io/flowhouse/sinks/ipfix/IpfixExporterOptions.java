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
 * Immutable; from its keys ({@link IpfixExporterKeys#options}, {@code flowhouse.ipfix.*},
 * documented there and in {@code sinks/README-zmq-ipfix.md}) or, in tests, {@link #builder()}.
 * {@link Builder#build()} validates, once.
 */
public final class IpfixExporterOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    /** RFC 7011 §10.3.3: the limit when the path MTU is unknown. */
    public static final int MIN_MESSAGE_BYTES = 512;

    /**
     * Longest interface name or description the key allows: under 255 a field's length is one byte,
     * and two names of each of two interfaces still fit a 1,400-byte message with a flow.
     */
    public static final int MAX_INTERFACE_NAME_BYTES = 254;

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
    private final int maxInterfaces;
    private final int interfaceNameMaxBytes;

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
        this.maxInterfaces = b.maxInterfaces;
        this.interfaceNameMaxBytes = b.interfaceNameMaxBytes;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The config key that switches the sink on ({@code --ipfix-to}, repeatable). */
    public static final String TARGETS_KEY = "flowhouse." + "ipfix.targets";

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
        b.maxInterfaces = maxInterfaces;
        b.interfaceNameMaxBytes = interfaceNameMaxBytes;
        return b;
    }

    public List<Target> targets() {
        return targets;
    }

    /** Interfaces remembered as announced per observation domain ({@code ipfix.max-interfaces}). */
    public int maxInterfaces() {
        return maxInterfaces;
    }

    /**
     * UTF-8 bytes of an interface name or description at most ({@code
     * ipfix.interface-name-max-bytes}); 0 sends no names.
     */
    public int interfaceNameMaxBytes() {
        return interfaceNameMaxBytes;
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
        private int maxMessageBytes = IpfixExporterKeys.MAX_MESSAGE_BYTES.defaultValue();
        private Duration templateRefreshInterval =
                IpfixExporterKeys.TEMPLATE_REFRESH_INTERVAL.defaultValue();
        private int templateRefreshMessages =
                IpfixExporterKeys.TEMPLATE_REFRESH_MESSAGES.defaultValue();
        private Duration linger = IpfixExporterKeys.LINGER.defaultValue();
        private long observationDomainId = IpfixExporterKeys.OBSERVATION_DOMAIN_ID.defaultValue();
        private BiflowMode biflowMode = IpfixExporterKeys.BIFLOW.defaultValue();
        private Duration reconnectBackoffMin =
                IpfixExporterKeys.TCP_RECONNECT_BACKOFF_MIN.defaultValue();
        private Duration reconnectBackoffMax =
                IpfixExporterKeys.TCP_RECONNECT_BACKOFF_MAX.defaultValue();
        private int sendBufferBytes = IpfixExporterKeys.SEND_BUFFER_BYTES.defaultValue().intValue();
        private int maxMessagesPerSecond = IpfixExporterKeys.MAX_MESSAGES_PER_SECOND.defaultValue();
        private int maxInterfaces = IpfixExporterKeys.MAX_INTERFACES.defaultValue();
        private int interfaceNameMaxBytes =
                IpfixExporterKeys.INTERFACE_NAME_MAX_BYTES.defaultValue();
        private Duration writeTimeout = IpfixExporterKeys.TCP_WRITE_TIMEOUT.defaultValue();
        private int queueCapacity = IpfixExporterKeys.QUEUE_CAPACITY.defaultValue();
        private int maxDomains = IpfixExporterKeys.MAX_DOMAINS.defaultValue();

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

        public Builder maxInterfaces(int v) {
            this.maxInterfaces = v;
            return this;
        }

        public Builder interfaceNameMaxBytes(int v) {
            this.interfaceNameMaxBytes = v;
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
            check(maxInterfaces >= 1, "max-interfaces", maxInterfaces, ">= 1");
            check(
                    interfaceNameMaxBytes >= 0 && interfaceNameMaxBytes <= MAX_INTERFACE_NAME_BYTES,
                    "interface-name-max-bytes",
                    interfaceNameMaxBytes,
                    "0.." + MAX_INTERFACE_NAME_BYTES);
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
