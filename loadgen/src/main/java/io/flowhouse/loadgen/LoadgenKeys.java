// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import io.flowhouse.loadgen.emit.DatagramEmitter;
import io.flowhouse.loadgen.emit.UdpSink;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * Every key of {@code ./flowhouse loadgen}, declared once, and the {@link LoadgenOptions} they
 * resolve to. The key table in {@code loadgen/README.md} is generated from these declarations
 * ({@code LoadgenConfigDocsTest}).
 */
public final class LoadgenKeys {

    private static final TrafficProfile PROFILE = TrafficProfile.defaults();

    private static final ValueType<InetSocketAddress> TARGET_TYPE =
            ValueType.of(
                    "host:port",
                    LoadgenKeys::parseTarget,
                    a -> a.getHostString() + ":" + a.getPort());

    public static final Key<InetSocketAddress> TARGET =
            Key.of("target", TARGET_TYPE)
                    .defaultText("none: write files only")
                    .doc("Collector to send to; [V6]:PORT for IPv6.")
                    .flag("--to", "HOST:PORT");

    public static final Key<String> PROTOCOL =
            Key.of("protocol", Types.oneOf("v5", "v9", "ipfix", "sflow", "mix"))
                    .defaultValue("ipfix")
                    .doc(
                            "Export protocol; mix: exporter i speaks v5, v9, ipfix for i mod 3 = 0,"
                                    + " 1, 2. sflow: sFlow v5, each flow one flow sample of one"
                                    + " packet (its frame synthesized, bytes the frame length"
                                    + " with FCS), the sampling rate --sampling.")
                    .flag("--protocol", "v5|v9|ipfix|sflow|mix");

    public static final Key<Integer> EXPORTERS =
            Key.of("exporters", Types.integer(1, 10_000))
                    .defaultValue(4)
                    .doc("Simulated exporters, one socket and source port each.")
                    .flag("--exporters", "N");

    public static final Key<Double> RATE =
            Key.of("rate", Types.decimal(0, Double.MAX_VALUE))
                    .defaultValue(10_000.0)
                    .doc(
                            "Target units per second (flows with --rate, datagrams with --dps); 0"
                                    + " is flat out.");

    public static final Key<DatagramEmitter.Unit> RATE_UNIT =
            Key.of("rate-unit", Types.enumOf(DatagramEmitter.Unit.class))
                    .defaultValue(DatagramEmitter.Unit.FLOWS)
                    .doc(
                            "Whether rate and count are flows or datagrams (--rate sets flows,"
                                    + " --dps datagrams).");

    public static final Key<Duration> DURATION =
            Key.of("duration", Types.duration(ChronoUnit.SECONDS, Duration.ofMillis(1), null))
                    .defaultText("10s unless count is given")
                    .doc("Run time; a bare number is seconds.")
                    .flag("--duration", "10s|500ms|2m");

    public static final Key<Long> COUNT =
            Key.of("count", Types.longRange(1, Long.MAX_VALUE))
                    .doc("Units to send instead of a duration.")
                    .flag("--count", "N");

    public static final Key<Long> SEED =
            Key.of("seed", Types.longRange(Long.MIN_VALUE, Long.MAX_VALUE))
                    .defaultValue(1L)
                    .doc("Random seed: same seed, same bytes.")
                    .flag("--seed", "S");

    public static final Key<Integer> SAMPLING =
            Key.of("sampling", Types.integer(1, 1 << 30))
                    .defaultValue(PROFILE.samplingInterval())
                    .doc("Announce 1-in-N sampling (v5 header, v9/IPFIX options).")
                    .flag("--sampling", "N");

    public static final Key<Duration> COUNTER_INTERVAL =
            Key.of("counter-interval", Types.duration(ChronoUnit.SECONDS, Duration.ZERO, null))
                    .defaultValue(Duration.ofMillis(PROFILE.counterIntervalMillis()))
                    .doc(
                            "sflow: each simulated interface (ifIndex 1-10 per agent) sends a"
                                    + " counter sample (generic interface and Ethernet"
                                    + " counters, following the flow samples sent) this often,"
                                    + " beside the flow samples; 0 = none.")
                    .flag("--counter-interval", "DURATION");

    public static final Key<Integer> TEMPLATE_REFRESH =
            Key.of("template-refresh", Types.integer(1, 1 << 30))
                    .defaultValue(PROFILE.templateRefreshDatagrams())
                    .doc("Resend templates every N datagrams.")
                    .flag("--template-refresh", "N");

    public static final Key<Double> GAP_RATIO =
            Key.of("gap-ratio", Types.decimal(0, 1))
                    .defaultValue(PROFILE.gapRatio())
                    .doc("Sequence gaps per datagram (the datagram is never built).")
                    .flag("--gap-ratio", "R");

    public static final Key<Double> MALFORMED_RATIO =
            Key.of("malformed-ratio", Types.decimal(0, 1))
                    .defaultValue(PROFILE.malformedRatio())
                    .doc("Share of deliberately malformed datagrams.")
                    .flag("--malformed-ratio", "R");

    public static final Key<Double> IPV6_SHARE =
            Key.of("ipv6-share", Types.decimal(0, 1))
                    .defaultValue(PROFILE.ipv6Share())
                    .doc("IPv6 share of flows (v5 is IPv4 only).")
                    .flag("--ipv6-share", "R");

    public static final Key<Integer> MAX_DATAGRAM =
            Key.of("max-datagram", Types.integer(512, 65_507))
                    .defaultValue(PROFILE.maxDatagramBytes())
                    .doc("Upper bound of one export datagram in bytes.")
                    .flag("--max-datagram", "BYTES");

    public static final Key<String> BIND =
            Key.of("bind", Types.STRING)
                    .defaultText("127.0.0.1, ::1 for an IPv6 target")
                    .doc(
                            "Local address; ADDR+ gives exporter i ADDR plus i (127.0.0.2+: one"
                                    + " loopback address per exporter).")
                    .flag("--bind", "ADDR[+]");

    public static final Key<Integer> SOURCE_PORT_BASE =
            Key.of("source-port-base", Types.integer(1, 65_535))
                    .defaultText("ephemeral")
                    .doc("Exporter i sends from port P+i.")
                    .flag("--source-port-base", "P");

    public static final Key<Long> SNDBUF =
            Key.of("sndbuf", Types.size(1024, 1L << 30))
                    .defaultValue(4L << 20)
                    .doc("Socket send buffer.")
                    .flag("--sndbuf", "BYTES");

    public static final Key<Path> PREFIXES =
            Key.of("prefixes", Types.PATH)
                    .defaultText("documentation ranges, private AS numbers")
                    .doc(
                            "Draw hosts from the prefixes of this file (one `CIDR [ASN]` a line,"
                                    + " e.g. real networks sampled from an ASN database, as"
                                    + " `./flowhouse demo` does) and send their AS numbers.")
                    .flag("--prefixes", "FILE");

    public static final Key<Path> PCAP_OUT =
            Key.of("pcap-out", Types.PATH)
                    .doc(
                            "Also write the datagrams as a pcap; alone (no target), nothing is sent"
                                    + " and time is virtual.")
                    .flag("--pcap-out", "FILE");

    public static final Key<Path> PACKETS_PCAP_OUT =
            Key.of("packets-pcap-out", Types.PATH)
                    .doc("Write a synthetic packet pcap (flows of packets) and exit.")
                    .flag("--packets-pcap-out", "FILE");

    public static final Key<Long> FLOWS =
            Key.of("flows", Types.longRange(1, 100_000_000L))
                    .defaultValue(1000L)
                    .doc("Flows in the packet pcap.")
                    .flag("--flows", "N");

    public static final Key<Long> START_TIME =
            Key.of("start-time", Types.longRange(Long.MIN_VALUE, Long.MAX_VALUE))
                    .defaultText("now")
                    .doc("First export time for files, epoch milliseconds.")
                    .flag("--start-time", "MILLIS");

    public static final Key<Path> SUMMARY_JSON =
            Key.of("summary-json", Types.PATH)
                    .doc("Write the exact totals as JSON.")
                    .flag("--summary-json", "FILE");

    public static final Key<Boolean> REQUIRE_RATE =
            Key.of("require-rate", Types.BOOLEAN)
                    .defaultValue(false)
                    .doc("Exit 3 if the target rate was not held.")
                    .flag("--require-rate", null);

    public static final Key<Integer> REPLAY_POOL =
            Key.of("replay-pool", Types.integer(1, 1_000_000))
                    .defaultText("off")
                    .doc(
                            "Build N datagrams per exporter once and cycle them (headers"
                                    + " rewritten) for rates beyond the generator's.")
                    .flag("--replay-pool", "N");

    public static final Key<Boolean> QUIET =
            Key.of("quiet", Types.BOOLEAN)
                    .defaultValue(false)
                    .doc("No progress line.")
                    .flag("--quiet", null);

    public static final ConfigSchema SCHEMA =
            ConfigSchema.of(
                    "flowhouse.loadgen",
                    "loadgen",
                    List.of(
                            TARGET,
                            PROTOCOL,
                            EXPORTERS,
                            RATE,
                            RATE_UNIT,
                            DURATION,
                            COUNT,
                            SEED,
                            SAMPLING,
                            COUNTER_INTERVAL,
                            TEMPLATE_REFRESH,
                            GAP_RATIO,
                            MALFORMED_RATIO,
                            IPV6_SHARE,
                            MAX_DATAGRAM,
                            BIND,
                            SOURCE_PORT_BASE,
                            SNDBUF,
                            PREFIXES,
                            PCAP_OUT,
                            PACKETS_PCAP_OUT,
                            FLOWS,
                            START_TIME,
                            SUMMARY_JSON,
                            REQUIRE_RATE,
                            REPLAY_POOL,
                            QUIET));

    private LoadgenKeys() {}

    /** The options from resolved keys, with the checks that span keys. */
    public static LoadgenOptions options(Config c, long nowMillis) {
        InetSocketAddress target = c.get(TARGET);
        if (target == null && c.get(PCAP_OUT) == null && c.get(PACKETS_PCAP_OUT) == null) {
            throw new ConfigException(
                    "--to HOST:PORT (or --pcap-out / --packets-pcap-out) is required");
        }
        Duration duration = c.get(DURATION);
        Long count = c.get(COUNT);
        if (duration != null && count != null) {
            throw new ConfigException("give --duration or --count, not both");
        }
        if (duration == null && count == null) {
            duration = Duration.ofSeconds(10);
        }
        int exporters = c.get(EXPORTERS);
        int portBase = c.get(SOURCE_PORT_BASE) == null ? 0 : c.get(SOURCE_PORT_BASE);
        if (portBase > 0 && portBase + exporters - 1 > 65_535) {
            throw new ConfigException("--source-port-base leaves too few ports");
        }
        String bind = c.get(BIND);
        if (bind == null) {
            bind =
                    target != null && target.getAddress() instanceof Inet6Address
                            ? "::1"
                            : "127.0.0.1";
        }
        try {
            UdpSink.bindAddress(bind, exporters - 1);
        } catch (UnknownHostException e) {
            throw new ConfigException("--bind " + bind + ": not an address", e);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("--bind " + e.getMessage(), e);
        }
        TrafficProfile profile =
                PROFILE.withSamplingInterval(c.get(SAMPLING))
                        .withTemplateRefreshDatagrams(c.get(TEMPLATE_REFRESH))
                        .withGapRatio(c.get(GAP_RATIO))
                        .withMalformedRatio(c.get(MALFORMED_RATIO))
                        .withIpv6Share(c.get(IPV6_SHARE))
                        .withMaxDatagramBytes(c.get(MAX_DATAGRAM))
                        .withCounterIntervalMillis(c.get(COUNTER_INTERVAL).toMillis());
        return new LoadgenOptions(
                target,
                c.get(PROTOCOL),
                exporters,
                c.get(RATE_UNIT),
                c.get(RATE),
                duration,
                count == null ? 0 : count,
                c.get(SEED),
                profile,
                bind,
                portBase,
                c.get(SNDBUF).intValue(),
                c.get(PCAP_OUT),
                c.get(PACKETS_PCAP_OUT),
                c.get(FLOWS),
                c.get(SUMMARY_JSON),
                c.get(QUIET),
                c.get(REQUIRE_RATE),
                c.get(START_TIME) == null ? nowMillis : c.get(START_TIME),
                c.get(REPLAY_POOL) == null ? 0 : c.get(REPLAY_POOL),
                c.get(PREFIXES));
    }

    static InetSocketAddress parseTarget(String v) {
        int colon = v.lastIndexOf(':');
        if (colon <= 0 || colon == v.length() - 1) {
            throw new IllegalArgumentException("(expected: HOST:PORT)");
        }
        String host = v.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(v.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad port (expected: HOST:PORT)", e);
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("port out of range (expected: 1..65535)");
        }
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new IllegalArgumentException("cannot resolve " + host);
        }
        return a;
    }
}
