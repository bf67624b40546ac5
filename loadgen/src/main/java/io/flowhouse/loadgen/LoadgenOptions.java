// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen;

import io.flowhouse.loadgen.emit.DatagramEmitter;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * The command line of {@code ./flowhouse loadgen}, parsed and validated in one place.
 *
 * @param target collector to send to; null when only writing files
 * @param protocol v5, v9, ipfix or mix (exporter i speaks v5, v9, ipfix for i mod 3 = 0, 1, 2)
 * @param exporters number of simulated exporters (one socket and source port each)
 * @param unit whether {@code rate} and {@code count} are flows or datagrams
 * @param rate units per second; 0 = as fast as possible
 * @param duration run length; null when a count is given
 * @param count units to send; 0 when a duration is given
 */
public record LoadgenOptions(
        InetSocketAddress target,
        String protocol,
        int exporters,
        DatagramEmitter.Unit unit,
        double rate,
        Duration duration,
        long count,
        long seed,
        TrafficProfile profile,
        String bindAddress,
        int sourcePortBase,
        int sendBufferBytes,
        Path pcapOut,
        Path packetsPcapOut,
        long packetFlows,
        Path summaryJson,
        boolean quiet,
        boolean requireRate,
        long startMillis,
        int replayPool) {

    public static final String USAGE =
            String.join(
                    "\n",
                    "usage: flowhouse loadgen --to HOST:PORT [options]",
                    "  --protocol v5|v9|ipfix|mix   export protocol (default ipfix; mix: round-robin"
                            + " per exporter)",
                    "  --exporters N                simulated exporters, one socket each (default 4)",
                    "  --rate N                     target flows/s (default 10000; 0 = flat out)",
                    "  --dps N                      target datagrams/s instead of flows/s",
                    "  --duration 10s|500ms|2m      run time (default 10s) | --count N units",
                    "  --seed S                     random seed (default 1): same seed, same bytes",
                    "  --sampling N                 announce 1-in-N sampling (v5 header, v9/IPFIX"
                            + " options)",
                    "  --template-refresh N         resend templates every N datagrams (default 20)",
                    "  --gap-ratio R                sequence gaps per datagram (default 0)",
                    "  --malformed-ratio R          malformed datagrams share (default 0)",
                    "  --ipv6-share R               IPv6 share of flows (default 0.3; v5 is IPv4)",
                    "  --max-datagram BYTES         datagram size bound (default 1400)",
                    "  --bind ADDR[+]               local address (default 127.0.0.1, ::1 for IPv6);"
                            + " ADDR+ gives exporter i ADDR plus i (127.0.0.2+: one loopback"
                            + " address per exporter)",
                    "  --source-port-base P         exporter i sends from port P+i (default"
                            + " ephemeral)",
                    "  --sndbuf BYTES               socket send buffer (default 4194304)",
                    "  --pcap-out FILE              also write the datagrams as a pcap (alone:"
                            + " no sending, virtual time)",
                    "  --packets-pcap-out FILE      write a synthetic packet pcap (flows of"
                            + " packets) and exit",
                    "  --flows N                    flows in the packet pcap (default 1000)",
                    "  --start-time MILLIS          first export time for files (default now)",
                    "  --summary-json FILE          write the exact totals as JSON",
                    "  --require-rate               exit 3 if the target rate was not held",
                    "  --replay-pool N              build N datagrams per exporter once and cycle"
                            + " them (headers rewritten) for rates beyond the generator's",
                    "  --quiet                      no progress line");

    /** Parses {@code args}; throws {@link IllegalArgumentException} with a readable message. */
    public static LoadgenOptions parse(String[] args, long nowMillis) {
        InetSocketAddress target = null;
        String protocol = "ipfix";
        int exporters = 4;
        DatagramEmitter.Unit unit = DatagramEmitter.Unit.FLOWS;
        double rate = 10_000;
        Duration duration = null;
        long count = 0;
        long seed = 1;
        TrafficProfile profile = TrafficProfile.defaults();
        String bind = null;
        int portBase = 0;
        int sndbuf = 4 << 20;
        Path pcapOut = null;
        Path packetsOut = null;
        long packetFlows = 1000;
        Path summary = null;
        boolean quiet = false;
        boolean requireRate = false;
        long start = nowMillis;
        int replayPool = 0;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--quiet" -> quiet = true;
                case "--require-rate" -> requireRate = true;
                case "-h", "--help" -> throw new IllegalArgumentException(USAGE);
                default -> {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException("missing value for " + a);
                    }
                    String v = args[++i];
                    switch (a) {
                        case "--to" -> target = parseTarget(v);
                        case "--protocol" -> protocol = parseProtocol(v);
                        case "--exporters" -> exporters = (int) positive(a, v, 1, 10_000);
                        case "--rate" -> {
                            unit = DatagramEmitter.Unit.FLOWS;
                            rate = nonNegative(a, v);
                        }
                        case "--dps" -> {
                            unit = DatagramEmitter.Unit.DATAGRAMS;
                            rate = nonNegative(a, v);
                        }
                        case "--duration" -> duration = parseDuration(v);
                        case "--count" -> count = positive(a, v, 1, Long.MAX_VALUE);
                        case "--seed" -> seed = Long.parseLong(v);
                        case "--sampling" ->
                                profile =
                                        profile.withSamplingInterval(
                                                (int) positive(a, v, 1, 1 << 30));
                        case "--template-refresh" ->
                                profile =
                                        profile.withTemplateRefreshDatagrams(
                                                (int) positive(a, v, 1, 1 << 30));
                        case "--gap-ratio" -> profile = profile.withGapRatio(share(a, v));
                        case "--malformed-ratio" ->
                                profile = profile.withMalformedRatio(share(a, v));
                        case "--ipv6-share" -> profile = profile.withIpv6Share(share(a, v));
                        case "--max-datagram" ->
                                profile =
                                        profile.withMaxDatagramBytes(
                                                (int) positive(a, v, 512, 65_507));
                        case "--bind" -> bind = v;
                        case "--source-port-base" -> portBase = (int) positive(a, v, 1, 65_535);
                        case "--sndbuf" -> sndbuf = (int) positive(a, v, 1024, 1 << 30);
                        case "--pcap-out" -> pcapOut = Path.of(v);
                        case "--packets-pcap-out" -> packetsOut = Path.of(v);
                        case "--flows" -> packetFlows = positive(a, v, 1, 100_000_000L);
                        case "--summary-json" -> summary = Path.of(v);
                        case "--start-time" -> start = Long.parseLong(v);
                        case "--replay-pool" -> replayPool = (int) positive(a, v, 1, 1_000_000);
                        default ->
                                throw new IllegalArgumentException(
                                        "unknown option " + a + "\n" + USAGE);
                    }
                }
            }
        }
        if (target == null && pcapOut == null && packetsOut == null) {
            throw new IllegalArgumentException(
                    "--to HOST:PORT (or --pcap-out / --packets-pcap-out) is required\n" + USAGE);
        }
        if (duration != null && count > 0) {
            throw new IllegalArgumentException("give --duration or --count, not both");
        }
        if (duration == null && count == 0) {
            duration = Duration.ofSeconds(10);
        }
        if (portBase > 0 && portBase + exporters - 1 > 65_535) {
            throw new IllegalArgumentException("--source-port-base leaves too few ports");
        }
        if (bind == null) {
            bind =
                    target != null && target.getAddress() instanceof java.net.Inet6Address
                            ? "::1"
                            : "127.0.0.1";
        }
        try {
            io.flowhouse.loadgen.emit.UdpSink.bindAddress(bind, exporters - 1);
        } catch (java.net.UnknownHostException e) {
            throw new IllegalArgumentException("--bind " + bind + ": not an address", e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--bind " + e.getMessage(), e);
        }
        return new LoadgenOptions(
                target,
                protocol,
                exporters,
                unit,
                rate,
                duration,
                count,
                seed,
                profile,
                bind,
                portBase,
                sndbuf,
                pcapOut,
                packetsOut,
                packetFlows,
                summary,
                quiet,
                requireRate,
                start,
                replayPool);
    }

    static InetSocketAddress parseTarget(String v) {
        int colon = v.lastIndexOf(':');
        if (colon <= 0 || colon == v.length() - 1) {
            throw new IllegalArgumentException("--to " + v + " (expected: HOST:PORT)");
        }
        String host = v.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(v.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--to " + v + ": bad port", e);
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("--to " + v + ": port out of range");
        }
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new IllegalArgumentException("--to " + v + ": cannot resolve " + host);
        }
        return a;
    }

    static String parseProtocol(String v) {
        String p = v.toLowerCase(Locale.ROOT);
        return switch (p) {
            case "v5", "v9", "ipfix", "mix" -> p;
            default ->
                    throw new IllegalArgumentException(
                            "--protocol " + v + " (expected: v5, v9, ipfix, mix)");
        };
    }

    /** Parses {@code 10s}, {@code 500ms}, {@code 2m}, {@code 1h} or plain seconds. */
    static Duration parseDuration(String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            Duration d;
            if (s.endsWith("ms")) {
                d = Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            } else if (s.endsWith("s")) {
                d =
                        Duration.ofMillis(
                                Math.round(
                                        Double.parseDouble(s.substring(0, s.length() - 1)) * 1000));
            } else if (s.endsWith("m")) {
                d = Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
            } else if (s.endsWith("h")) {
                d = Duration.ofHours(Long.parseLong(s.substring(0, s.length() - 1)));
            } else {
                d = Duration.ofMillis(Math.round(Double.parseDouble(s) * 1000));
            }
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("--duration " + v + " (expected: > 0)");
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--duration " + v + " (expected: 10s, 500ms, 2m)", e);
        }
    }

    private static long positive(String name, String v, long min, long max) {
        long n;
        try {
            n = Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " " + v + " is not a whole number", e);
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(
                    name + " " + v + " (expected: " + min + ".." + max + ")");
        }
        return n;
    }

    private static double nonNegative(String name, String v) {
        double d;
        try {
            d = Double.parseDouble(v.replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " " + v + " is not a number", e);
        }
        if (!(d >= 0) || Double.isInfinite(d)) {
            throw new IllegalArgumentException(name + " " + v + " (expected: >= 0)");
        }
        return d;
    }

    private static double share(String name, String v) {
        double d = nonNegative(name, v);
        if (d > 1) {
            throw new IllegalArgumentException(name + " " + v + " (expected: 0..1)");
        }
        return d;
    }
}
