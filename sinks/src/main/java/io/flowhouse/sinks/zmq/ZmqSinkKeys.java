// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The keys of the ntopng ZMQ publisher ({@code flowhouse.zmq.*}), declared once, and the {@link
 * ZmqSinkOptions} they resolve to. The sink is off until {@link #ENDPOINT} is set. Values are
 * checked once, by {@link ZmqSinkOptions.Builder#build()}; the key table in {@code
 * sinks/README-zmq-ipfix.md} is generated from these declarations.
 */
public final class ZmqSinkKeys {

    public static final Key<String> ENDPOINT =
            Key.of("zmq.endpoint", Types.STRING)
                    .defaultText("none (off)")
                    .doc(
                            "Publish every flow to ntopng (nDPI TLV, zmq_msg_hdr_v3):"
                                    + " tcp://127.0.0.1:5556 binds on loopback (sink parallelism"
                                    + " 1; ntopng -i tcp://127.0.0.1:5556), tcp://HOST:5556c"
                                    + " connects to an ntopng in collector mode (-i"
                                    + " tcp://*:5556c); zmq:// is read as tcp://. A bind beyond"
                                    + " loopback (tcp://*:5556, the nProbe default) needs CURVE"
                                    + " or zmq.allow-unauthenticated. Unset: no ZMQ sink."
                                    + " `./flowhouse up --zmq E`.");

    public static final Key<Long> SOURCE_ID =
            Key.of("zmq.source-id", Types.longRange(0, 0xffff_ffffL))
                    .defaultValue(0L)
                    .doc(
                            "source_id in every header (uint32); sink subtask i uses source-id + i,"
                                    + " so ntopng keeps one msg_id sequence per subtask.");

    public static final Key<Integer> MAX_MESSAGE_BYTES =
            Key.of("zmq.max-message-bytes", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(65_536)
                    .doc(
                            "TLV payload limit, 1024.."
                                    + ZmqSinkOptions.MAX_NTOPNG_PAYLOAD
                                    + " (ntopng's CONST_ZMQ_PAYLOAD_LEN).");

    public static final Key<Duration> LINGER =
            Key.of("zmq.linger", millis())
                    .defaultValue(Duration.ofMillis(100))
                    .doc("Longest a partly filled flow message waits before it is sent (> 0).");

    public static final Key<Integer> QUEUE_CAPACITY =
            Key.of("zmq.queue-capacity", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(65_536)
                    .doc("Flows between the writer and the socket thread (>= 1).");

    public static final Key<ZmqSinkOptions.Overflow> OVERFLOW =
            Key.of("zmq.overflow", Types.enumOf(ZmqSinkOptions.Overflow.class))
                    .defaultValue(ZmqSinkOptions.Overflow.DROP)
                    .doc(
                            "drop: count and drop a flow when the queue is full, so a stalled"
                                    + " ntopng never stalls the ClickHouse path; block: Flink"
                                    + " back-pressure.");

    public static final Key<Integer> SEND_HWM =
            Key.of("zmq.send-hwm", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(1_000)
                    .doc(
                            "ZMQ send high-water mark, in messages, per subscriber (>= 1): what"
                                    + " ZMQ holds for one subscriber that does not keep up, at most"
                                    + " send-hwm x max-message-bytes bytes of heap each.");

    public static final Key<ZmqSinkOptions.SlowSubscriber> SLOW_SUBSCRIBER =
            Key.of("zmq.slow-subscriber", Types.enumOf(ZmqSinkOptions.SlowSubscriber.class))
                    .defaultValue(ZmqSinkOptions.SlowSubscriber.DROP)
                    .doc(
                            "drop: a subscriber whose send-hwm is full loses its own messages"
                                    + " (ntopng counts them from the msg_id gap), the others and"
                                    + " the job never wait; wait (ZMQ_XPUB_NODROP) holds the"
                                    + " socket for it, so one subscriber that never reads stops"
                                    + " every other one and fills the queue.");

    public static final Key<Boolean> ALLOW_UNAUTHENTICATED =
            Key.of("zmq.allow-unauthenticated", Types.BOOLEAN)
                    .defaultValue(false)
                    .doc(
                            "true allows binding beyond loopback without CURVE: anyone who can"
                                    + " reach the port then reads every flow.");

    public static final Key<Duration> EVENT_INTERVAL =
            Key.of("zmq.event-interval", millis())
                    .defaultValue(Duration.ofSeconds(1))
                    .doc("Period of event messages (> 0).");

    public static final Key<Duration> TEMPLATE_INTERVAL =
            Key.of("zmq.template-interval", millis())
                    .defaultValue(Duration.ofSeconds(60))
                    .doc("Period of template messages (> 0).");

    public static final Key<Duration> INTERFACES_INTERVAL =
            Key.of("zmq.interfaces.interval", millis())
                    .defaultValue(Duration.ofSeconds(60))
                    .doc(
                            "Period of the snmp-ifaces messages that repeat every exporter's"
                                    + " interface names to ntopng (> 0), as nProbe does; an"
                                    + " exporter whose names change is sent again with the next"
                                    + " event.");

    public static final Key<Integer> INTERFACES_MAX_PER_EXPORTER =
            Key.of("zmq.interfaces.max-per-exporter", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(4096)
                    .doc(
                            "Interfaces whose names are kept and sent per exporter; one more is"
                                    + " counted in zmq.interfaces_refused. A message holds what"
                                    + " fits in max-message-bytes, the rest is counted in"
                                    + " zmq.interfaces_cut.");

    public static final Key<Integer> INTERFACES_MAX_EXPORTERS =
            Key.of("zmq.interfaces.max-exporters", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(1024)
                    .doc(
                            "Exporters whose interface names are kept; the interfaces of one"
                                    + " more are counted in zmq.interfaces_refused.");

    public static final Key<Duration> AWAIT_SUBSCRIBER =
            Key.of("zmq.await-subscriber", millis())
                    .defaultValue(Duration.ZERO)
                    .doc(
                            "How long the first message is held until a subscriber has subscribed;"
                                    + " 0 never waits (PUB drops what nobody subscribed to).");

    public static final Key<Integer> TIMEOUT_LIFETIME =
            Key.of("zmq.timeout.lifetime", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(120)
                    .doc(
                            "Active timeout in seconds reported in event.timeout (> 0); ntopng ages"
                                    + " collected flows with it.");

    public static final Key<Integer> TIMEOUT_IDLE =
            Key.of("zmq.timeout.idle", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(30)
                    .doc("Idle timeout in seconds reported in event.timeout (> 0).");

    public static final Key<Integer> TIMEOUT_COLLECTED_LIFETIME =
            Key.of("zmq.timeout.collected-lifetime", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(120)
                    .doc("Collected-flow lifetime in seconds reported in event.timeout (> 0).");

    public static final Key<String> PROBE_NAME =
            Key.of("zmq.probe-name", Types.STRING)
                    .defaultValue("flowhouse")
                    .doc("Name ntopng shows as the remote interface and probe version.");

    public static final Key<Path> CURVE_SERVER_PUBLIC_KEY_FILE =
            Key.of("zmq.curve.server-public-key-file", Types.PATH)
                    .doc(
                            "ntopng's CURVE public key (Z85 text or a zcert file); the publisher"
                                    + " is then a CURVE client, as nprobe --zmq-encryption-key.");

    public static final Key<Path> CURVE_PUBLIC_KEY_FILE =
            Key.of("zmq.curve.public-key-file", Types.PATH)
                    .doc(
                            "This publisher's CURVE public key. With a server key, the client pair"
                                    + " (generated if both are absent); without one the publisher"
                                    + " is the CURVE server and needs both, and the allow-list.");

    public static final Key<Path> CURVE_SECRET_KEY_FILE =
            Key.of("zmq.curve.secret-key-file", Types.PATH)
                    .doc("This publisher's CURVE secret key (see zmq.curve.public-key-file).");

    public static final Key<Path> CURVE_ALLOWED_CLIENTS_FILE =
            Key.of("zmq.curve.allowed-clients-file", Types.PATH)
                    .doc(
                            "The CURVE server's client allow-list: one Z85 public key a line;"
                                    + " every other client is refused (ZAP). Required in CURVE"
                                    + " server mode.");

    /** In declaration order. */
    public static final List<Key<?>> KEYS =
            List.of(
                    ENDPOINT,
                    SOURCE_ID,
                    MAX_MESSAGE_BYTES,
                    LINGER,
                    QUEUE_CAPACITY,
                    OVERFLOW,
                    SEND_HWM,
                    SLOW_SUBSCRIBER,
                    ALLOW_UNAUTHENTICATED,
                    EVENT_INTERVAL,
                    TEMPLATE_INTERVAL,
                    INTERFACES_INTERVAL,
                    INTERFACES_MAX_PER_EXPORTER,
                    INTERFACES_MAX_EXPORTERS,
                    AWAIT_SUBSCRIBER,
                    TIMEOUT_LIFETIME,
                    TIMEOUT_IDLE,
                    TIMEOUT_COLLECTED_LIFETIME,
                    PROBE_NAME,
                    CURVE_SERVER_PUBLIC_KEY_FILE,
                    CURVE_PUBLIC_KEY_FILE,
                    CURVE_SECRET_KEY_FILE,
                    CURVE_ALLOWED_CLIENTS_FILE);

    /** These keys alone under {@code flowhouse}, for their README table. */
    public static final ConfigSchema SCHEMA = ConfigSchema.of("flowhouse", "ZMQ publisher", KEYS);

    private ZmqSinkKeys() {}

    /**
     * The publisher's options, or null when {@link #ENDPOINT} is not set: the sink is off by
     * default.
     *
     * @throws ConfigException naming the first bad key
     */
    public static ZmqSinkOptions options(Config c) {
        String endpoint = c.get(ENDPOINT);
        if (endpoint == null || endpoint.isBlank()) {
            return null;
        }
        try {
            return ZmqSinkOptions.builder(endpoint)
                    .sourceId(c.get(SOURCE_ID))
                    .maxMessageBytes(c.get(MAX_MESSAGE_BYTES))
                    .linger(c.get(LINGER))
                    .queueCapacity(c.get(QUEUE_CAPACITY))
                    .overflow(c.get(OVERFLOW))
                    .sendHwm(c.get(SEND_HWM))
                    .slowSubscriber(c.get(SLOW_SUBSCRIBER))
                    .allowUnauthenticated(c.get(ALLOW_UNAUTHENTICATED))
                    .eventInterval(c.get(EVENT_INTERVAL))
                    .templateInterval(c.get(TEMPLATE_INTERVAL))
                    .interfacesInterval(c.get(INTERFACES_INTERVAL))
                    .interfacesMaxPerExporter(c.get(INTERFACES_MAX_PER_EXPORTER))
                    .interfacesMaxExporters(c.get(INTERFACES_MAX_EXPORTERS))
                    .awaitSubscriber(c.get(AWAIT_SUBSCRIBER))
                    .timeouts(
                            c.get(TIMEOUT_LIFETIME),
                            c.get(TIMEOUT_IDLE),
                            c.get(TIMEOUT_COLLECTED_LIFETIME))
                    .probeName(c.get(PROBE_NAME))
                    .curveServerPublicKeyFile(c.get(CURVE_SERVER_PUBLIC_KEY_FILE))
                    .curvePublicKeyFile(c.get(CURVE_PUBLIC_KEY_FILE))
                    .curveSecretKeyFile(c.get(CURVE_SECRET_KEY_FILE))
                    .curveAllowedClientsFile(c.get(CURVE_ALLOWED_CLIENTS_FILE))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config " + e.getMessage(), e);
        }
    }

    private static ValueType<Duration> millis() {
        return Types.duration(ChronoUnit.MILLIS, Duration.ZERO, null);
    }
}
