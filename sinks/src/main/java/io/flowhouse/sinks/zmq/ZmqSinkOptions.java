// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import java.io.Serializable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Configuration of the ntopng-compatible ZMQ publisher ({@link ZmqPublisher}, {@link ZmqSink}).
 * Immutable; build with {@link #builder(String)} and {@link #defaults(String)}. Validation happens
 * once, in {@link Builder#build()}.
 *
 * <p>Config keys (flag {@code --zmq ENDPOINT} switches the sink on; off by default):
 *
 * <ul>
 *   <li>{@code flowhouse.zmq.endpoint}: {@code tcp://127.0.0.1:5556} binds on loopback (ntopng on
 *       the same host runs {@code -i tcp://127.0.0.1:5556}); a trailing {@code c} ({@code
 *       tcp://HOST:5556c}) connects to an ntopng in collector mode ({@code -i tcp://*:5556c}).
 *       {@code zmq://} is read as {@code tcp://}. A bind beyond loopback ({@code tcp://*:5556},
 *       nProbe's default) needs CURVE or {@code allow-unauthenticated=true}.
 *   <li>{@code flowhouse.zmq.allow-unauthenticated}: {@code true} allows binding beyond loopback
 *       without CURVE: anyone who can reach the port then reads every flow.
 *   <li>{@code flowhouse.zmq.source-id}: {@code source_id} in every header (uint32); sink subtask
 *       {@code i} uses {@code source-id + i} so ntopng keeps one msg_id sequence per subtask.
 *   <li>{@code flowhouse.zmq.max-message-bytes}: TLV payload limit, at most 131072 (ntopng's {@code
 *       CONST_ZMQ_PAYLOAD_LEN}).
 *   <li>{@code flowhouse.zmq.linger}: longest a partly filled flow message waits before it is sent.
 *   <li>{@code flowhouse.zmq.queue-capacity}: flows between the writer and the socket thread
 *       (65,536).
 *   <li>{@code flowhouse.zmq.overflow}: {@code drop} (count and drop when the queue is full; the
 *       default, so a stalled ntopng never stalls the ClickHouse path) or {@code block} (Flink
 *       back-pressure).
 *   <li>{@code flowhouse.zmq.send-hwm}: ZMQ send high-water mark, in messages, per subscriber
 *       (1,000): what ZMQ holds for one subscriber that does not keep up, at most {@code send-hwm x
 *       max-message-bytes} bytes of heap each.
 *   <li>{@code flowhouse.zmq.slow-subscriber}: {@code drop} (default): a subscriber whose {@code
 *       send-hwm} is full loses its own messages (ntopng counts them from the msg_id gap), the
 *       others and the job never wait; {@code wait} ({@code ZMQ_XPUB_NODROP}) holds the socket for
 *       it, so one subscriber that never reads stops every other one and fills the queue.
 *   <li>{@code flowhouse.zmq.event-interval}: period of {@code event} messages.
 *   <li>{@code flowhouse.zmq.template-interval}: period of {@code template} messages.
 *   <li>{@code flowhouse.zmq.await-subscriber}: how long to hold the first message until a
 *       subscriber has subscribed (0: never wait; PUB drops what nobody subscribed to).
 *   <li>{@code flowhouse.zmq.timeout.lifetime|idle|collected-lifetime}: seconds reported in {@code
 *       event.timeout}; ntopng ages collected flows with them.
 *   <li>{@code flowhouse.zmq.curve.server-public-key-file}: ntopng's CURVE public key (Z85 text or
 *       a zcert file); the publisher is then a CURVE client, as {@code nprobe
 *       --zmq-encryption-key}.
 *   <li>{@code flowhouse.zmq.curve.public-key-file} / {@code secret-key-file}: this publisher's key
 *       pair. With a server key they are the client pair (generated if absent); without one the
 *       publisher is the CURVE server and needs both, and the allow-list.
 *   <li>{@code flowhouse.zmq.curve.allowed-clients-file}: the CURVE server's client allow-list
 *       ({@link CurveAllowList}: one Z85 public key a line); every other client is refused.
 * </ul>
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
    public static final String ENDPOINT_KEY = "flowhouse.zmq.endpoint";

    /**
     * Options from flat configuration keys ({@code flowhouse.zmq.*}, listed in the class comment),
     * or null when {@value #ENDPOINT_KEY} is not set: the sink is off by default.
     *
     * @throws IllegalArgumentException naming the first bad key
     */
    public static ZmqSinkOptions fromConfig(java.util.Map<String, String> config) {
        SinkConfigValues c = new SinkConfigValues(config);
        String endpoint = c.string(ENDPOINT_KEY);
        if (endpoint == null) {
            return null;
        }
        Builder d = new Builder(endpoint);
        Builder b =
                builder(endpoint)
                        .sourceId(c.longValue("flowhouse.zmq.source-id", d.sourceId))
                        .maxMessageBytes(
                                c.intValue("flowhouse.zmq.max-message-bytes", d.maxMessageBytes))
                        .linger(c.duration("flowhouse.zmq.linger", d.linger))
                        .queueCapacity(c.intValue("flowhouse.zmq.queue-capacity", d.queueCapacity))
                        .sendHwm(c.intValue("flowhouse.zmq.send-hwm", d.sendHwm))
                        .eventInterval(c.duration("flowhouse.zmq.event-interval", d.eventInterval))
                        .templateInterval(
                                c.duration("flowhouse.zmq.template-interval", d.templateInterval))
                        .awaitSubscriber(
                                c.duration("flowhouse.zmq.await-subscriber", d.awaitSubscriber))
                        .timeouts(
                                c.intValue(
                                        "flowhouse.zmq.timeout.lifetime", d.lifetimeTimeoutSeconds),
                                c.intValue("flowhouse.zmq.timeout.idle", d.idleTimeoutSeconds),
                                c.intValue(
                                        "flowhouse.zmq.timeout.collected-lifetime",
                                        d.collectedLifetimeSeconds));
        if (c.has("flowhouse.zmq.overflow")) {
            b.overflow(Overflow.parse(c.string("flowhouse.zmq.overflow")));
        }
        if (c.has("flowhouse.zmq.slow-subscriber")) {
            b.slowSubscriber(SlowSubscriber.parse(c.string("flowhouse.zmq.slow-subscriber")));
        }
        b.allowUnauthenticated(
                c.bool("flowhouse.zmq.allow-unauthenticated", d.allowUnauthenticated));
        if (c.has("flowhouse.zmq.probe-name")) {
            b.probeName(c.string("flowhouse.zmq.probe-name"));
        }
        String server = c.string("flowhouse.zmq.curve.server-public-key-file");
        String pub = c.string("flowhouse.zmq.curve.public-key-file");
        String sec = c.string("flowhouse.zmq.curve.secret-key-file");
        b.curveServerPublicKeyFile(server == null ? null : Path.of(server));
        b.curvePublicKeyFile(pub == null ? null : Path.of(pub));
        b.curveSecretKeyFile(sec == null ? null : Path.of(sec));
        String allowed = c.string("flowhouse.zmq.curve.allowed-clients-file");
        b.curveAllowedClientsFile(allowed == null ? null : Path.of(allowed));
        return b.build();
    }

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
        private long sourceId = 0L;
        private int maxMessageBytes = 65_536;
        private Duration linger = Duration.ofMillis(100);
        private int queueCapacity = 65_536;
        private Overflow overflow = Overflow.DROP;
        private int sendHwm = 1_000;
        private Duration eventInterval = Duration.ofSeconds(1);
        private Duration templateInterval = Duration.ofSeconds(60);
        private Duration awaitSubscriber = Duration.ZERO;
        private int lifetimeTimeoutSeconds = 120;
        private int idleTimeoutSeconds = 30;
        private int collectedLifetimeSeconds = 120;
        private String curveServerPublicKeyFile;
        private String curvePublicKeyFile;
        private String curveSecretKeyFile;
        private String curveAllowedClientsFile;
        private SlowSubscriber slowSubscriber = SlowSubscriber.DROP;
        private boolean allowUnauthenticated;
        private String probeName = "flowhouse";

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
