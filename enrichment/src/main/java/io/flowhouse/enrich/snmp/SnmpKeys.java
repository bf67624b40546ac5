// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.HostPort;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The keys of SNMP enrichment ({@code flowhouse.enrich.snmp.*}), declared once, and the {@link
 * SnmpOptions} they resolve to. SNMP is off until {@link #CREDENTIALS_FILE} is set. The key table
 * in {@code enrichment/README.md} is generated from these declarations.
 */
public final class SnmpKeys {

    public static final Key<Path> CREDENTIALS_FILE =
            Key.of("enrich.snmp.credentials-file", Types.PATH)
                    .defaultText("none (SNMP off)")
                    .doc(
                            "YAML file of credentials by exporter CIDR (v2c community, or v3 user"
                                    + " with auth and priv protocols and passphrases); the most"
                                    + " specific prefix wins. Unset: no SNMP polling.");

    public static final Key<List<String>> AGENTS =
            Key.of("enrich.snmp.agents", Types.list(Types.STRING))
                    .defaultValue(List.of())
                    .doc(
                            "Agent address overrides, EXPORTER=AGENT[:PORT] (IPv6 as"
                                    + " [ADDR]:PORT): poll AGENT instead of the exporter's own"
                                    + " address.");

    public static final Key<Integer> PORT =
            Key.of("enrich.snmp.port", Types.integer(1, 65_535))
                    .defaultValue(161)
                    .doc("UDP port of the agents without an override.");

    public static final Key<Integer> MAX_IN_FLIGHT =
            Key.of("enrich.snmp.max-in-flight", Types.integer(1, 10_000))
                    .defaultValue(16)
                    .doc("Exporters polled at once; the others wait for a free slot.");

    public static final Key<Duration> TIMEOUT =
            Key.of("enrich.snmp.timeout", millis(SnmpOptions.MAX_TIMEOUT))
                    .defaultValue(Duration.ofSeconds(2))
                    .doc("Wait for one SNMP response before a retry (> 0).");

    public static final Key<Integer> RETRIES =
            Key.of("enrich.snmp.retries", Types.integer(0, 10))
                    .defaultValue(1)
                    .doc("Retries of one request after a timeout.");

    public static final Key<Duration> REFRESH_INTERVAL =
            Key.of("enrich.snmp.refresh-interval", millis(SnmpOptions.MAX_INTERVAL))
                    .defaultValue(Duration.ofMinutes(10))
                    .doc("Time between two polls of an exporter that answered (> 0).");

    public static final Key<Duration> FAILED_RETRY_INTERVAL =
            Key.of("enrich.snmp.failed-retry-interval", millis(SnmpOptions.MAX_INTERVAL))
                    .defaultValue(Duration.ofMinutes(1))
                    .doc(
                            "Time before an exporter whose poll failed is polled again (> 0); what"
                                    + " it answered before is kept meanwhile.");

    public static final Key<Integer> MAX_EXPORTERS =
            Key.of("enrich.snmp.max-exporters", Types.integer(1, 1_000_000))
                    .defaultValue(10_000)
                    .doc(
                            "Exporters held; beyond it the least recently observed are dropped"
                                    + " (snmp exporters dropped).");

    public static final Key<Integer> MAX_INTERFACES =
            Key.of("enrich.snmp.max-interfaces", Types.integer(1, 1_000_000))
                    .defaultValue(4_096)
                    .doc(
                            "Interfaces held per exporter; the rest of its table is not walked"
                                    + " (snmp tables cut).");

    public static final Key<Integer> MAX_STRING_CHARS =
            Key.of("enrich.snmp.max-string-chars", Types.integer(1, 65_535))
                    .defaultValue(256)
                    .doc(
                            "Longest sysName, ifName, ifAlias or ifDescr kept; longer values are"
                                    + " cut (snmp values truncated).");

    public static final Key<Integer> MAX_REPETITIONS =
            Key.of("enrich.snmp.max-repetitions", Types.integer(1, 1_000))
                    .defaultValue(25)
                    .doc("GETBULK max-repetitions: table rows asked for in one request.");

    /** In declaration order. */
    public static final List<Key<?>> KEYS =
            List.of(
                    CREDENTIALS_FILE,
                    AGENTS,
                    PORT,
                    MAX_IN_FLIGHT,
                    TIMEOUT,
                    RETRIES,
                    REFRESH_INTERVAL,
                    FAILED_RETRY_INTERVAL,
                    MAX_EXPORTERS,
                    MAX_INTERFACES,
                    MAX_STRING_CHARS,
                    MAX_REPETITIONS);

    /** These keys alone under {@code flowhouse}, for their README table. */
    public static final ConfigSchema SCHEMA = ConfigSchema.of("flowhouse", "SNMP enrichment", KEYS);

    private SnmpKeys() {}

    /**
     * The options, or null when {@link #CREDENTIALS_FILE} is not set: SNMP is off by default.
     *
     * @throws ConfigException naming the bad key or credentials entry
     */
    public static SnmpOptions options(Config c) {
        SnmpSettings s = settings(c);
        if (s == null) {
            return null;
        }
        try {
            return s.options();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config " + e.getMessage(), e);
        }
    }

    /**
     * The settings, or null when {@link #CREDENTIALS_FILE} is not set; the credentials file is read
     * later, by {@link SnmpSettings#options()} (or {@link #options} to check it at once).
     */
    public static SnmpSettings settings(Config c) {
        Path file = c.get(CREDENTIALS_FILE);
        if (file == null) {
            return null;
        }
        return new SnmpSettings(
                file.toString(),
                c.get(AGENTS),
                c.get(PORT),
                c.get(MAX_IN_FLIGHT),
                c.get(TIMEOUT),
                c.get(RETRIES),
                c.get(REFRESH_INTERVAL),
                c.get(FAILED_RETRY_INTERVAL),
                c.get(MAX_EXPORTERS),
                c.get(MAX_INTERFACES),
                c.get(MAX_STRING_CHARS),
                c.get(MAX_REPETITIONS));
    }

    /** Parses {@code EXPORTER=AGENT[:PORT]}; addresses are numeric, never looked up. */
    static void addAgent(SnmpOptions.Builder b, String entry, int defaultPort) {
        int eq = entry.indexOf('=');
        String bad = AGENTS.name() + " " + entry + " (expected: EXPORTER=AGENT[:PORT])";
        if (eq <= 0) {
            throw new IllegalArgumentException(bad);
        }
        byte[] exporter = Cidr.literal(entry.substring(0, eq).trim());
        String agentText = entry.substring(eq + 1).trim();
        String host = agentText;
        int port = defaultPort;
        boolean hasPort =
                agentText.startsWith("[")
                        ? agentText.contains("]:")
                        : agentText.indexOf(':') >= 0
                                && agentText.indexOf(':') == agentText.lastIndexOf(':');
        if (hasPort) {
            HostPort hp;
            try {
                hp = HostPort.parse(agentText);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(bad, e);
            }
            host = hp.host();
            port = hp.port();
        } else if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        byte[] agent = Cidr.literal(host);
        if (exporter == null || agent == null || port < 1 || port > 65_535) {
            throw new IllegalArgumentException(bad);
        }
        try {
            b.agent(
                    InetAddress.getByAddress(exporter),
                    new InetSocketAddress(InetAddress.getByAddress(agent), port));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(bad, e);
        }
    }

    private static io.flowhouse.config.ValueType<Duration> millis(Duration max) {
        return Types.duration(ChronoUnit.MILLIS, Duration.ZERO, max);
    }
}
