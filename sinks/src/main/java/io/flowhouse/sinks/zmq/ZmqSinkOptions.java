// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Configuration of the ntopng-compatible ZMQ publisher ({@link ZmqPublisher}, {@link ZmqSink}).
 * Immutable; from its keys ({@link ZmqSinkKeys#options}, {@code flowhouse.zmq.*}, documented there
 * and in {@code sinks/README-zmq-ipfix.md}) or, in tests, {@link #builder(String)} and {@link
 * #defaults(String)}. Validation happens once, in {@link Builder#build()}.
 */
public final class ZmqSinkOptions implements Serializable {

    private static final long serialVersionUID = 1L;

    /** ntopng's {@code CONST_ZMQ_PAYLOAD_LEN}: larger frames are truncated by the collector. */
    public static final int MAX_NTOPNG_PAYLOAD = 131_072;

    /** What the socket does for a subscriber that does not keep up. */
    public enum SlowSubscriber {
        /** Past its send-hwm the subscriber loses its own messages; nobody waits. */
        DROP,
        /** {@code ZMQ_XPUB_NODROP}: the socket waits for it, and so does every other subscriber. */
        WAIT;

        /** Parses {@code drop} or {@code wait}, case-insensitive. */
        public static SlowSubscriber parse(String s) {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        }
    }

    /** What the writer does when the socket thread falls behind. */
    public enum Overflow {
        /** Count the flow as dropped and go on. */
        DROP,
        /** Wait for room: Flink back-pressure. */
        BLOCK;

        /** Parses {@code drop} or {@code block}, case-insensitive. */
        public static Overflow parse(String s) {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        }
    }

    private final String endpoint;
    private final long sourceId;
    private final int maxMessageBytes;
    private final Duration linger;
    private final int queueCapacity;
    private final Overflow overflow;
    private final int sendHwm;
    private final Duration eventInterval;
    private final Duration templateInterval;
    private final Duration interfacesInterval;
    private final int interfacesMaxPerExporter;
    private final int interfacesMaxExporters;
    private final Duration awaitSubscriber;
    private final int lifetimeTimeoutSeconds;
    private final int idleTimeoutSeconds;
    private final int collectedLifetimeSeconds;
    private final String curveServerPublicKeyFile;
    private final String curvePublicKeyFile;
    private final String curveSecretKeyFile;
    private final String curveAllowedClientsFile;
    private final SlowSubscriber slowSubscriber;
    private final boolean allowUnauthenticated;
    private final String probeName;

    private ZmqSinkOptions(Builder b) {
        this.endpoint = b.endpoint;
        this.sourceId = b.sourceId;
        this.maxMessageBytes = b.maxMessageBytes;
        this.linger = b.linger;
        this.queueCapacity = b.queueCapacity;
        this.overflow = b.overflow;
        this.sendHwm = b.sendHwm;
        this.eventInterval = b.eventInterval;
        this.templateInterval = b.templateInterval;
        this.interfacesInterval = b.interfacesInterval;
        this.interfacesMaxPerExporter = b.interfacesMaxPerExporter;
        this.interfacesMaxExporters = b.interfacesMaxExporters;
        this.awaitSubscriber = b.awaitSubscriber;
        this.lifetimeTimeoutSeconds = b.lifetimeTimeoutSeconds;
        this.idleTimeoutSeconds = b.idleTimeoutSeconds;
        this.collectedLifetimeSeconds = b.collectedLifetimeSeconds;
        this.curveServerPublicKeyFile = b.curveServerPublicKeyFile;
        this.curvePublicKeyFile = b.curvePublicKeyFile;
        this.curveSecretKeyFile = b.curveSecretKeyFile;
        this.curveAllowedClientsFile = b.curveAllowedClientsFile;
        this.slowSubscriber = b.slowSubscriber;
        this.allowUnauthenticated = b.allowUnauthenticated;
        this.probeName = b.probeName;
    }

    /** The config key that switches the sink on ({@code --zmq ENDPOINT}). */
    public static final String ENDPOINT_KEY = "flowhouse." + "zmq.endpoint";

    /** The defaults for one endpoint. */
    public static ZmqSinkOptions defaults(String endpoint) {
        return builder(endpoint).build();
    }

    public static Builder builder(String endpoint) {
        return new Builder(endpoint);
    }

    public Builder toBuilder() {
        Builder b = new Builder(endpoint);
        b.sourceId = sourceId;
        b.maxMessageBytes = maxMessageBytes;
        b.linger = linger;
        b.queueCapacity = queueCapacity;
        b.overflow = overflow;
        b.sendHwm = sendHwm;
        b.eventInterval = eventInterval;
        b.templateInterval = templateInterval;
        b.interfacesInterval = interfacesInterval;
        b.interfacesMaxPerExporter = interfacesMaxPerExporter;
        b.interfacesMaxExporters = interfacesMaxExporters;
        b.awaitSubscriber = awaitSubscriber;
        b.lifetimeTimeoutSeconds = lifetimeTimeoutSeconds;
        b.idleTimeoutSeconds = idleTimeoutSeconds;
        b.collectedLifetimeSeconds = collectedLifetimeSeconds;
        b.curveServerPublicKeyFile = curveServerPublicKeyFile;
        b.curvePublicKeyFile = curvePublicKeyFile;
        b.curveSecretKeyFile = curveSecretKeyFile;
        b.curveAllowedClientsFile = curveAllowedClientsFile;
        b.slowSubscriber = slowSubscriber;
        b.allowUnauthenticated = allowUnauthenticated;
        b.probeName = probeName;
        return b;
    }

    /** The endpoint as configured. */
    public String endpoint() {
        return endpoint;
    }

    /** True when the publisher connects to an ntopng in collector mode (trailing {@code c}). */
    public boolean connectMode() {
        int n = endpoint.length();
        return n > 1 && endpoint.charAt(n - 1) == 'c' && Character.isDigit(endpoint.charAt(n - 2));
    }

    /** The address handed to ZMQ: {@code zmq://} rewritten, collector-mode {@code c} removed. */
    public String zmqAddress() {
        String a = connectMode() ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        return a.startsWith("zmq://") ? "tcp://" + a.substring("zmq://".length()) : a;
    }

    public long sourceId() {
        return sourceId;
    }

    public int maxMessageBytes() {
        return maxMessageBytes;
    }

    public Duration linger() {
        return linger;
    }

    public int queueCapacity() {
        return queueCapacity;
    }

    public Overflow overflow() {
        return overflow;
    }

    public int sendHwm() {
        return sendHwm;
    }

    public Duration eventInterval() {
        return eventInterval;
    }

    public Duration templateInterval() {
        return templateInterval;
    }

    /** Period of the {@code snmp-ifaces} messages that repeat every exporter's interface names. */
    public Duration interfacesInterval() {
        return interfacesInterval;
    }

    /** Interfaces kept (and announced) per exporter. */
    public int interfacesMaxPerExporter() {
        return interfacesMaxPerExporter;
    }

    /** Exporters whose interface names are kept. */
    public int interfacesMaxExporters() {
        return interfacesMaxExporters;
    }

    public Duration awaitSubscriber() {
        return awaitSubscriber;
    }

    public int lifetimeTimeoutSeconds() {
        return lifetimeTimeoutSeconds;
    }

    public int idleTimeoutSeconds() {
        return idleTimeoutSeconds;
    }

    public int collectedLifetimeSeconds() {
        return collectedLifetimeSeconds;
    }

    /** ntopng's CURVE public key file, or null. */
    public Path curveServerPublicKeyFile() {
        return curveServerPublicKeyFile == null ? null : Path.of(curveServerPublicKeyFile);
    }

    /** This publisher's CURVE public key file, or null. */
    public Path curvePublicKeyFile() {
        return curvePublicKeyFile == null ? null : Path.of(curvePublicKeyFile);
    }

    /** This publisher's CURVE secret key file, or null. */
    public Path curveSecretKeyFile() {
        return curveSecretKeyFile == null ? null : Path.of(curveSecretKeyFile);
    }

    /** True when any CURVE key is configured. */
    public boolean curveEnabled() {
        return curveServerPublicKeyFile != null || curveSecretKeyFile != null;
    }

    /** True when the publisher is the CURVE server (its own pair, no server key). */
    public boolean curveServer() {
        return curveEnabled() && curveServerPublicKeyFile == null;
    }

    /** The CURVE server's client allow-list file, or null. */
    public Path curveAllowedClientsFile() {
        return curveAllowedClientsFile == null ? null : Path.of(curveAllowedClientsFile);
    }

    public SlowSubscriber slowSubscriber() {
        return slowSubscriber;
    }

    /** True when a bind beyond loopback without CURVE was asked for explicitly. */
    public boolean allowUnauthenticated() {
        return allowUnauthenticated;
    }

    /**
     * True when the endpoint binds a TCP address other than loopback ({@code *}, an interface, a
     * non-loopback address or name).
     */
    public boolean bindsBeyondLoopback() {
        if (connectMode()) {
            return false;
        }
        String a = zmqAddress();
        if (!a.startsWith("tcp://")) {
            return false; // ipc:// and inproc:// stay on this host
        }
        String hostPort = a.substring("tcp://".length());
        int colon = hostPort.lastIndexOf(':');
        String host = colon < 0 ? hostPort : hostPort.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        String h = host.toLowerCase(Locale.ROOT);
        return !(h.equals("localhost")
                || h.equals("lo")
                || h.equals("::1")
                || h.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}"));
    }

    /** Name shown by ntopng as the remote interface and probe version. */
    public String probeName() {
        return probeName;
    }

    @Override
    public String toString() {
        return "ZmqSinkOptions{endpoint="
                + endpoint
                + ", sourceId="
                + sourceId
                + ", maxMessageBytes="
                + maxMessageBytes
                + ", linger="
                + linger
                + ", queueCapacity="
                + queueCapacity
                + ", overflow="
                + overflow
                + ", slowSubscriber="
                + slowSubscriber
                + ", curve="
                + (curveServer() ? "server" : curveEnabled() ? "client" : "off")
                + "}";
    }

    /** Mutable builder; {@link #build()} validates. */
    public static final class Builder {
        private final String endpoint;
        private long sourceId = ZmqSinkKeys.SOURCE_ID.defaultValue();
        private int maxMessageBytes = ZmqSinkKeys.MAX_MESSAGE_BYTES.defaultValue();
        private Duration linger = ZmqSinkKeys.LINGER.defaultValue();
        private int queueCapacity = ZmqSinkKeys.QUEUE_CAPACITY.defaultValue();
        private Overflow overflow = ZmqSinkKeys.OVERFLOW.defaultValue();
        private int sendHwm = ZmqSinkKeys.SEND_HWM.defaultValue();
        private Duration eventInterval = ZmqSinkKeys.EVENT_INTERVAL.defaultValue();
        private Duration templateInterval = ZmqSinkKeys.TEMPLATE_INTERVAL.defaultValue();
        private Duration interfacesInterval = ZmqSinkKeys.INTERFACES_INTERVAL.defaultValue();
        private int interfacesMaxPerExporter =
                ZmqSinkKeys.INTERFACES_MAX_PER_EXPORTER.defaultValue();
        private int interfacesMaxExporters = ZmqSinkKeys.INTERFACES_MAX_EXPORTERS.defaultValue();
        private Duration awaitSubscriber = ZmqSinkKeys.AWAIT_SUBSCRIBER.defaultValue();
        private int lifetimeTimeoutSeconds = ZmqSinkKeys.TIMEOUT_LIFETIME.defaultValue();
        private int idleTimeoutSeconds = ZmqSinkKeys.TIMEOUT_IDLE.defaultValue();
        private int collectedLifetimeSeconds =
                ZmqSinkKeys.TIMEOUT_COLLECTED_LIFETIME.defaultValue();
        private String curveServerPublicKeyFile;
        private String curvePublicKeyFile;
        private String curveSecretKeyFile;
        private String curveAllowedClientsFile;
        private SlowSubscriber slowSubscriber = ZmqSinkKeys.SLOW_SUBSCRIBER.defaultValue();
        private boolean allowUnauthenticated = ZmqSinkKeys.ALLOW_UNAUTHENTICATED.defaultValue();
        private String probeName = ZmqSinkKeys.PROBE_NAME.defaultValue();

        private Builder(String endpoint) {
            this.endpoint = Objects.requireNonNull(endpoint, "endpoint").trim();
        }

        public Builder sourceId(long v) {
            this.sourceId = v;
            return this;
        }

        public Builder maxMessageBytes(int v) {
            this.maxMessageBytes = v;
            return this;
        }

        public Builder linger(Duration v) {
            this.linger = v;
            return this;
        }

        public Builder queueCapacity(int v) {
            this.queueCapacity = v;
            return this;
        }

        public Builder overflow(Overflow v) {
            this.overflow = v;
            return this;
        }

        public Builder sendHwm(int v) {
            this.sendHwm = v;
            return this;
        }

        public Builder eventInterval(Duration v) {
            this.eventInterval = v;
            return this;
        }

        public Builder interfacesInterval(Duration v) {
            this.interfacesInterval = v;
            return this;
        }

        public Builder interfacesMaxPerExporter(int v) {
            this.interfacesMaxPerExporter = v;
            return this;
        }

        public Builder interfacesMaxExporters(int v) {
            this.interfacesMaxExporters = v;
            return this;
        }

        public Builder templateInterval(Duration v) {
            this.templateInterval = v;
            return this;
        }

        public Builder awaitSubscriber(Duration v) {
            this.awaitSubscriber = v;
            return this;
        }

        /** Active (lifetime), idle and collected-lifetime timeouts in seconds. */
        public Builder timeouts(int lifetime, int idle, int collectedLifetime) {
            this.lifetimeTimeoutSeconds = lifetime;
            this.idleTimeoutSeconds = idle;
            this.collectedLifetimeSeconds = collectedLifetime;
            return this;
        }

        public Builder curveServerPublicKeyFile(Path v) {
            this.curveServerPublicKeyFile = v == null ? null : v.toString();
            return this;
        }

        public Builder curvePublicKeyFile(Path v) {
            this.curvePublicKeyFile = v == null ? null : v.toString();
            return this;
        }

        public Builder curveSecretKeyFile(Path v) {
            this.curveSecretKeyFile = v == null ? null : v.toString();
            return this;
        }

        /** The CURVE server's client allow-list ({@link CurveAllowList}). */
        public Builder curveAllowedClientsFile(Path v) {
            this.curveAllowedClientsFile = v == null ? null : v.toString();
            return this;
        }

        public Builder slowSubscriber(SlowSubscriber v) {
            this.slowSubscriber = Objects.requireNonNull(v, "slowSubscriber");
            return this;
        }

        /** Allows a bind beyond loopback without CURVE. */
        public Builder allowUnauthenticated(boolean v) {
            this.allowUnauthenticated = v;
            return this;
        }

        public Builder probeName(String v) {
            this.probeName = Objects.requireNonNull(v, "probeName");
            return this;
        }

        /**
         * Validates and builds.
         *
         * @throws IllegalArgumentException naming the first bad value
         */
        public ZmqSinkOptions build() {
            String a = endpoint;
            if (!(a.startsWith("tcp://")
                    || a.startsWith("zmq://")
                    || a.startsWith("ipc://")
                    || a.startsWith("inproc://"))) {
                throw new IllegalArgumentException(
                        "zmq endpoint " + a + " (expected: tcp://HOST:PORT[c] or ipc://PATH)");
            }
            check(sourceId >= 0 && sourceId <= 0xffff_ffffL, "source-id", sourceId, "uint32");
            check(
                    maxMessageBytes >= 1024 && maxMessageBytes <= MAX_NTOPNG_PAYLOAD,
                    "max-message-bytes",
                    maxMessageBytes,
                    "1024.." + MAX_NTOPNG_PAYLOAD);
            check(
                    !linger.isNegative() && !linger.isZero(),
                    "linger",
                    linger,
                    "a positive duration");
            check(queueCapacity >= 1, "queue-capacity", queueCapacity, ">= 1");
            check(sendHwm >= 1, "send-hwm", sendHwm, ">= 1");
            check(
                    !eventInterval.isNegative() && !eventInterval.isZero(),
                    "event-interval",
                    eventInterval,
                    "a positive duration");
            check(
                    !templateInterval.isNegative() && !templateInterval.isZero(),
                    "template-interval",
                    templateInterval,
                    "a positive duration");
            check(
                    !interfacesInterval.isNegative() && !interfacesInterval.isZero(),
                    "interfaces.interval",
                    interfacesInterval,
                    "a positive duration");
            check(
                    interfacesMaxPerExporter >= 1,
                    "interfaces.max-per-exporter",
                    interfacesMaxPerExporter,
                    ">= 1");
            check(
                    interfacesMaxExporters >= 1,
                    "interfaces.max-exporters",
                    interfacesMaxExporters,
                    ">= 1");
            check(!awaitSubscriber.isNegative(), "await-subscriber", awaitSubscriber, ">= 0");
            check(lifetimeTimeoutSeconds > 0, "timeout.lifetime", lifetimeTimeoutSeconds, "> 0");
            check(idleTimeoutSeconds > 0, "timeout.idle", idleTimeoutSeconds, "> 0");
            check(
                    collectedLifetimeSeconds > 0,
                    "timeout.collected-lifetime",
                    collectedLifetimeSeconds,
                    "> 0");
            if (curveServerPublicKeyFile == null
                    && (curvePublicKeyFile == null) != (curveSecretKeyFile == null)) {
                throw new IllegalArgumentException(
                        "zmq curve server mode needs both public-key-file and secret-key-file");
            }
            if (curveServerPublicKeyFile != null
                    && (curvePublicKeyFile == null) != (curveSecretKeyFile == null)) {
                throw new IllegalArgumentException(
                        "zmq curve client keys need both public-key-file and secret-key-file, or"
                                + " neither (generated)");
            }
            ZmqSinkOptions o = new ZmqSinkOptions(this);
            if (o.curveServer() && curveAllowedClientsFile == null) {
                throw new IllegalArgumentException(
                        "zmq curve server mode needs flowhouse.zmq.curve.allowed-clients-file"
                                + " (the subscribers' public keys, one a line): without it any"
                                + " client would be admitted");
            }
            if (!o.curveServer() && curveAllowedClientsFile != null) {
                throw new IllegalArgumentException(
                        "flowhouse.zmq.curve.allowed-clients-file needs curve server mode"
                                + " (curve.public-key-file and curve.secret-key-file, no"
                                + " curve.server-public-key-file)");
            }
            if (o.bindsBeyondLoopback() && !o.curveEnabled() && !allowUnauthenticated) {
                throw new IllegalArgumentException(
                        "zmq endpoint "
                                + endpoint
                                + " binds beyond loopback without CURVE: anyone who can reach it"
                                + " would read every flow (expected: tcp://127.0.0.1:PORT, CURVE"
                                + " keys with flowhouse.zmq.curve.*, or"
                                + " flowhouse.zmq.allow-unauthenticated=true)");
            }
            return o;
        }

        private static void check(boolean ok, String key, Object value, String expected) {
            if (!ok) {
                throw new IllegalArgumentException(
                        "flowhouse.zmq." + key + " = " + value + " (expected: " + expected + ")");
            }
        }
    }
}
