// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The keys of the IPFIX re-export ({@code flowhouse.ipfix.*}), declared once, and the {@link
 * IpfixExporterOptions} they resolve to. The exporter is off until {@link #TARGETS} is set. Values
 * are checked once, by {@link IpfixExporterOptions.Builder#build()}; the key table in {@code
 * sinks/README-zmq-ipfix.md} is generated from these declarations.
 */
public final class IpfixExporterKeys {

    private static final ValueType<IpfixExporterOptions.Target> TARGET =
            ValueType.of(
                    "HOST:PORT[/tcp]",
                    IpfixExporterOptions.Target::parse,
                    IpfixExporterOptions.Target::toString);

    public static final Key<List<IpfixExporterOptions.Target>> TARGETS =
            Key.of("ipfix.targets", Types.list(TARGET))
                    .defaultText("none (off)")
                    .doc(
                            "Re-export every flow as IPFIX to these collectors: HOST:PORT (UDP) or"
                                    + " HOST:PORT/tcp, IPv6 as [::1]:4739; comma-separated or a"
                                    + " YAML list. One transport session per target per subtask."
                                    + " Unset: no IPFIX sink. `./flowhouse up --ipfix-to T`"
                                    + " (repeatable).");

    public static final Key<Integer> MAX_MESSAGE_BYTES =
            Key.of("ipfix.max-message-bytes", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(1400)
                    .doc(
                            "Largest IPFIX message (the UDP payload): 1400 fits a 1500-byte path;"
                                    + " 512 where the path MTU is unknown (RFC 7011 §10.3.3); up to"
                                    + " 65507 over UDP (a collector on the same host, or a"
                                    + " jumbo-frame path: 8960), 65535 over TCP. Bigger messages"
                                    + " cost less CPU per record, but one bigger than the path MTU"
                                    + " is fragmented and lost whole when one fragment is.");

    public static final Key<Duration> TEMPLATE_REFRESH_INTERVAL =
            Key.of("ipfix.template-refresh-interval", millis())
                    .defaultValue(Duration.ofSeconds(60))
                    .doc(
                            "Over UDP templates are resent when this time or"
                                    + " template-refresh-messages is reached (RFC 7011 §8.4); over"
                                    + " TCP they are sent once per connection.");

    public static final Key<Integer> TEMPLATE_REFRESH_MESSAGES =
            Key.of("ipfix.template-refresh-messages", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(1000)
                    .doc("Messages after which templates are resent over UDP (>= 1).");

    public static final Key<Duration> LINGER =
            Key.of("ipfix.linger", millis())
                    .defaultValue(Duration.ofMillis(500))
                    .doc("Longest a partly filled message waits (> 0).");

    public static final Key<Long> OBSERVATION_DOMAIN_ID =
            Key.of("ipfix.observation-domain-id", Types.longRange(-1, 0xffff_ffffL))
                    .defaultValue(-1L)
                    .doc(
                            "-1 keeps each flow's own domain (templates and sequence numbers per"
                                    + " domain); otherwise every flow goes out in this domain.");

    public static final Key<IpfixExporterOptions.BiflowMode> BIFLOW =
            Key.of("ipfix.biflow", Types.enumOf(IpfixExporterOptions.BiflowMode.class))
                    .defaultValue(IpfixExporterOptions.BiflowMode.SPLIT)
                    .doc(
                            "split sends an RFC 5103 biflow as two uniflows, which every collector"
                                    + " counts; rfc5103 keeps one record with the reverse counters"
                                    + " in PEN 29305 IEs (nfcapd and IPFIXcol2 read them, goflow2"
                                    + " and pmacct ignore them).");

    public static final Key<Duration> TCP_RECONNECT_BACKOFF_MIN =
            Key.of("ipfix.tcp.reconnect-backoff-min", millis())
                    .defaultValue(Duration.ofMillis(100))
                    .doc(
                            "First wait between TCP connection attempts, doubled up to"
                                    + " reconnect-backoff-max; flows for a disconnected collector"
                                    + " are dropped and counted.");

    public static final Key<Duration> TCP_RECONNECT_BACKOFF_MAX =
            Key.of("ipfix.tcp.reconnect-backoff-max", millis())
                    .defaultValue(Duration.ofSeconds(10))
                    .doc("Longest wait between TCP connection attempts.");

    public static final Key<Duration> TCP_WRITE_TIMEOUT =
            Key.of("ipfix.tcp.write-timeout", millis())
                    .defaultValue(Duration.ofSeconds(5))
                    .doc(
                            "Longest a TCP collector may take nothing before the connection is"
                                    + " dropped (counted in write_timeouts) and made again with"
                                    + " backoff (> 0).");

    public static final Key<Integer> QUEUE_CAPACITY =
            Key.of("ipfix.queue-capacity", Types.integer(1, 1 << 24))
                    .defaultValue(16_384)
                    .doc(
                            "Flows between the Flink writer and each target's sender thread; when"
                                    + " full, flows are dropped and counted (queue_dropped), so a"
                                    + " slow or stalled collector never stalls the job.");

    public static final Key<Integer> MAX_DOMAINS =
            Key.of("ipfix.max-domains", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(1_024)
                    .doc(
                            "Observation domains with their own message, templates and sequence"
                                    + " number per target; the least recently used one is sent and"
                                    + " forgotten when a new one comes past the limit (counted in"
                                    + " domains_evicted; it starts again with templates and"
                                    + " sequence 0 if it comes back).");

    public static final Key<Integer> MAX_INTERFACES =
            Key.of("ipfix.max-interfaces", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(4_096)
                    .doc(
                            "Interfaces remembered as announced (their names in an options"
                                    + " record) per observation domain and target; past it the"
                                    + " least recently used is forgotten and its name goes out"
                                    + " again with its next flow (counted in interfaces_forgotten):"
                                    + " bytes on the wire, never memory.");

    public static final Key<Integer> INTERFACE_NAME_MAX_BYTES =
            Key.of(
                            "ipfix.interface-name-max-bytes",
                            Types.integer(0, IpfixExporterOptions.MAX_INTERFACE_NAME_BYTES))
                    .defaultValue(128)
                    .doc(
                            "Interface names and descriptions are cut to this many UTF-8 bytes, at"
                                    + " a character boundary (counted in interface_names_cut); 0"
                                    + " sends no names. Less where two interfaces' names would not"
                                    + " fit one max-message-bytes message beside a flow (logged at"
                                    + " start).");

    public static final Key<Long> SEND_BUFFER_BYTES =
            Key.of("ipfix.send-buffer-bytes", Types.size(0, Integer.MAX_VALUE))
                    .defaultValue(4L << 20)
                    .doc("Socket send buffer asked of the kernel.");

    public static final Key<Integer> MAX_MESSAGES_PER_SECOND =
            Key.of("ipfix.max-messages-per-second", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(0)
                    .doc(
                            "Pacing of messages per target; 0 sends as fast as the socket takes"
                                    + " them. Collectors with a small receive buffer (goflow2 keeps"
                                    + " the kernel default) lose bursts; the writer waits"
                                    + " instead.");

    /** In declaration order. */
    public static final List<Key<?>> KEYS =
            List.of(
                    TARGETS,
                    MAX_MESSAGE_BYTES,
                    TEMPLATE_REFRESH_INTERVAL,
                    TEMPLATE_REFRESH_MESSAGES,
                    LINGER,
                    OBSERVATION_DOMAIN_ID,
                    BIFLOW,
                    TCP_RECONNECT_BACKOFF_MIN,
                    TCP_RECONNECT_BACKOFF_MAX,
                    TCP_WRITE_TIMEOUT,
                    QUEUE_CAPACITY,
                    MAX_DOMAINS,
                    MAX_INTERFACES,
                    INTERFACE_NAME_MAX_BYTES,
                    SEND_BUFFER_BYTES,
                    MAX_MESSAGES_PER_SECOND);

    /** These keys alone under {@code flowhouse}, for their README table. */
    public static final ConfigSchema SCHEMA = ConfigSchema.of("flowhouse", "IPFIX exporter", KEYS);

    private IpfixExporterKeys() {}

    /**
     * The exporter's options, or null when no target is set: the sink is off by default.
     *
     * @throws ConfigException naming the first bad key
     */
    public static IpfixExporterOptions options(Config c) {
        List<IpfixExporterOptions.Target> targets = c.get(TARGETS);
        if (targets == null || targets.isEmpty()) {
            return null;
        }
        IpfixExporterOptions.Builder b = IpfixExporterOptions.builder();
        targets.forEach(b::target);
        try {
            return b.maxMessageBytes(c.get(MAX_MESSAGE_BYTES))
                    .templateRefreshInterval(c.get(TEMPLATE_REFRESH_INTERVAL))
                    .templateRefreshMessages(c.get(TEMPLATE_REFRESH_MESSAGES))
                    .linger(c.get(LINGER))
                    .observationDomainId(c.get(OBSERVATION_DOMAIN_ID))
                    .biflowMode(c.get(BIFLOW))
                    .reconnectBackoff(
                            c.get(TCP_RECONNECT_BACKOFF_MIN), c.get(TCP_RECONNECT_BACKOFF_MAX))
                    .sendBufferBytes(c.get(SEND_BUFFER_BYTES).intValue())
                    .maxMessagesPerSecond(c.get(MAX_MESSAGES_PER_SECOND))
                    .writeTimeout(c.get(TCP_WRITE_TIMEOUT))
                    .queueCapacity(c.get(QUEUE_CAPACITY))
                    .maxDomains(c.get(MAX_DOMAINS))
                    .maxInterfaces(c.get(MAX_INTERFACES))
                    .interfaceNameMaxBytes(c.get(INTERFACE_NAME_MAX_BYTES))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config " + e.getMessage(), e);
        }
    }

    private static ValueType<Duration> millis() {
        return Types.duration(ChronoUnit.MILLIS, Duration.ZERO, null);
    }
}
