// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.generate;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Makes realistic unidirectional flows: a pure function of (seed, exporter, flow index, export
 * time). Nothing is kept between calls, so the same arguments always give the same flow, on any
 * thread and in any order.
 *
 * <p>Content: client and server hosts drawn with Zipf popularity (a few top talkers, a long tail),
 * services (ports and protocols) drawn with Zipf popularity from {@link Service#DEFAULT_MIX},
 * log-normal packet counts and per-service packet sizes, TCP flags by how the flow ended, DSCP
 * marks. Addresses come only from documentation ranges (RFC 5737 192.0.2.0/24, 198.51.100.0/24,
 * 203.0.113.0/24; RFC 3849 2001:db8::/32) and AS numbers from the private range 64512-65534 (RFC
 * 6996), so nothing generated can be mistaken for real traffic; unless an {@link AddressPool} is
 * given: then hosts lie in its (real) prefixes and carry their AS numbers.
 */
public final class FlowGenerator {

    /** First private 16-bit AS number (RFC 6996). */
    public static final int PRIVATE_AS_FIRST = 64_512;

    /** Last private 16-bit AS number (65535 is reserved). */
    public static final int PRIVATE_AS_LAST = 65_534;

    /** Smallest packet at IP level: IPv4 + TCP headers; add 20 for IPv6. */
    private static final int MIN_TCP_PACKET = 40;

    /** Smallest UDP or ICMP packet at IP level over IPv4; add 20 for IPv6. */
    private static final int MIN_UDP_PACKET = 28;

    private static final int MAX_PACKET = 1500;
    private static final long MAX_PACKETS = 1_000_000L;

    private static final int TCP_FIN = 0x01;
    private static final int TCP_SYN = 0x02;
    private static final int TCP_RST = 0x04;
    private static final int TCP_PSH = 0x08;
    private static final int TCP_ACK = 0x10;

    private static final int[] DSCP = {0, 10, 18, 34, 46};
    private static final double[] DSCP_CUMULATIVE = {0.80, 0.87, 0.93, 0.97, 1.0};

    private final TrafficProfile profile;
    private final long seed;
    private final List<Service> services;
    private final Zipf serviceRank;
    private final Zipf clientRank;
    private final Zipf serverRank;
    private final AddressPool pool;

    public FlowGenerator(TrafficProfile profile, long seed) {
        this(profile, seed, Service.DEFAULT_MIX);
    }

    public FlowGenerator(TrafficProfile profile, long seed, List<Service> services) {
        this(profile, seed, services, null);
    }

    /** With hosts in {@code pool}'s prefixes (null: the documentation ranges). */
    public FlowGenerator(TrafficProfile profile, long seed, AddressPool pool) {
        this(profile, seed, Service.DEFAULT_MIX, pool);
    }

    private FlowGenerator(
            TrafficProfile profile, long seed, List<Service> services, AddressPool pool) {
        this.pool = pool;
        this.profile = profile;
        this.seed = seed;
        this.services = List.copyOf(services);
        this.serviceRank = new Zipf(this.services.size(), profile.serviceExponent());
        this.clientRank = new Zipf(profile.clientHosts(), profile.talkerExponent());
        this.serverRank = new Zipf(profile.serverHosts(), profile.talkerExponent());
    }

    public TrafficProfile profile() {
        return profile;
    }

    /**
     * The flow number {@code flowIndex} of exporter {@code exporter}, exported at {@code
     * exportTimeMillis}: it ended at most {@code maxExportDelayMillis} before that and lasted at
     * most {@code activeTimeoutMillis}.
     *
     * @param ipv6Allowed false for exporters that cannot carry IPv6 (NetFlow v5)
     */
    public FlowRecord flow(
            int exporter, long flowIndex, long exportTimeMillis, boolean ipv6Allowed) {
        SplittableRandom rnd = new SplittableRandom(mix(seed, exporter, flowIndex));
        boolean ipv6 = ipv6Allowed && rnd.nextDouble() < profile.ipv6Share();
        Service svc = services.get(serviceRank.rank(rnd.nextDouble()));
        if (svc.protocol() == Service.ICMP && ipv6) {
            // ICMPv6 echo request is type 128.
            svc =
                    new Service(
                            svc.name(),
                            Service.ICMPV6,
                            svc.port() == 8 * 256 ? 128 * 256 : 1 * 256 + 4,
                            svc.medianPackets(),
                            svc.packetSpread(),
                            svc.requestSize(),
                            svc.responseSize());
        }
        int client = clientRank.rank(rnd.nextDouble());
        int server = serverRank.rank(rnd.nextDouble());
        boolean pooled = pool != null && (!ipv6 || pool.hasIpv6());
        IpAddress clientAddr =
                pooled
                        ? pool.host(client, false, ipv6)
                        : ipv6 ? clientV6(client) : clientV4(client);
        IpAddress serverAddr =
                pooled ? pool.host(server, true, ipv6) : ipv6 ? serverV6(server) : serverV4(server);
        // About half of the flows are the server's answers: exporters see both directions.
        boolean response = !svc.isIcmp() && rnd.nextDouble() < 0.5;
        int ephemeral = 32_768 + rnd.nextInt(28_232);

        long packets = packets(rnd, svc);
        int typical = response ? svc.responseSize() : svc.requestSize();
        long bytes = bytes(rnd, svc, packets, typical, ipv6);

        long end = exportTimeMillis - (long) (rnd.nextDouble() * profile.maxExportDelayMillis());
        long duration = duration(rnd, packets);
        long start = end - duration;

        FlowRecord.Builder b =
                FlowRecord.builder()
                        .ipVersion(ipv6 ? 6 : 4)
                        .protocol(svc.protocol())
                        .bytes(bytes)
                        .packets(packets)
                        .flowStartMillis(start)
                        .flowEndMillis(end)
                        .tos(dscp(rnd, svc) << 2)
                        .direction(0)
                        .samplingRate(1);
        if (response) {
            b.srcAddr(serverAddr).dstAddr(clientAddr).srcPort(svc.port()).dstPort(ephemeral);
        } else {
            b.srcAddr(clientAddr).dstAddr(serverAddr);
            if (svc.isIcmp()) {
                b.srcPort(0).dstPort(svc.port());
            } else {
                b.srcPort(ephemeral).dstPort(svc.port());
            }
        }
        if (svc.protocol() == Service.TCP) {
            int flags = tcpFlags(rnd, packets, duration);
            b.tcpFlags(flags);
            b.flowEndReason((flags & (TCP_FIN | TCP_RST)) != 0 ? 3 : duration >= 30_000 ? 2 : 1);
        } else {
            b.flowEndReason(duration >= profile.activeTimeoutMillis() ? 2 : 1);
        }
        int prefix = ipv6 ? 48 : 24;
        long clientAs = pooled ? fit(pool.asn(client, false, ipv6), ipv6Allowed) : asOf(clientAddr);
        long serverAs = pooled ? fit(pool.asn(server, true, ipv6), ipv6Allowed) : asOf(serverAddr);
        b.srcPrefixLen(prefix)
                .dstPrefixLen(prefix)
                .srcAs(response ? serverAs : clientAs)
                .dstAs(response ? clientAs : serverAs)
                .nextHop(ipv6 ? V6_NEXT_HOP : V4_NEXT_HOP);
        // Interfaces 1-2 are uplinks (servers side), 3-10 access (clients side).
        int access = 3 + (client % 8);
        int uplink = 1 + (server % 2);
        b.inputInterface(response ? uplink : access).outputInterface(response ? access : uplink);
        return b.build();
    }

    private static final IpAddress V4_NEXT_HOP = IpAddress.parse("192.0.2.1");
    private static final IpAddress V6_NEXT_HOP = IpAddress.parse("2001:db8::1");

    /** Clients live in 198.51.100.0/24 and 203.0.113.0/24 (hosts .1 to .254, then wrap). */
    static IpAddress clientV4(int rank) {
        int net = (rank / 254) % 2 == 0 ? 0xc6336400 : 0xcb007100; // 198.51.100.0, 203.0.113.0
        return IpAddress.ofIpv4(net | (1 + rank % 254));
    }

    /** Servers live in 192.0.2.0/24 (.2 to .253; .1 is the gateway). */
    static IpAddress serverV4(int rank) {
        return IpAddress.ofIpv4(0xc0000200 | (2 + rank % 252));
    }

    /** Clients in 2001:db8:c000+site::/48 sites, 64 hosts per site. */
    static IpAddress clientV6(int rank) {
        long hi = 0x2001_0db8_0000_0000L | ((0xc000L + rank / 64) << 16);
        return new IpAddress(hi, 0x100 + (rank % 64));
    }

    /** Servers in 2001:db8:5000+site::/48, 16 per site. */
    static IpAddress serverV6(int rank) {
        long hi = 0x2001_0db8_0000_0000L | ((0x5000L + rank / 16) << 16);
        return new IpAddress(hi, 0x10 + (rank % 16));
    }

    /**
     * NetFlow v5 (the exporters without IPv6) has 16-bit AS fields: a 32-bit AS number is sent as
     * 0, left to the collector's ASN database (AS_TRANS, 23456, would name no one).
     */
    private static long fit(long as, boolean wideAs) {
        return wideAs || as <= 0xffff ? as : 0;
    }

    /** A private AS per /24 (IPv4) or /48 (IPv6), stable for a prefix. */
    static long asOf(IpAddress a) {
        long key = a.isIpv4() ? (a.ipv4() >>> 8) : (a.hi() >>> 16);
        long h = mix(key, 0x9e37, 0x79b9);
        return PRIVATE_AS_FIRST + Math.floorMod(h, PRIVATE_AS_LAST - PRIVATE_AS_FIRST + 1);
    }

    private static long packets(SplittableRandom rnd, Service svc) {
        double g = gaussian(rnd);
        double v = svc.medianPackets() * Math.exp(svc.packetSpread() * g);
        return Math.max(1L, Math.min(MAX_PACKETS, Math.round(v)));
    }

    private static long bytes(
            SplittableRandom rnd, Service svc, long packets, int typical, boolean ipv6) {
        int min =
                (svc.protocol() == Service.TCP ? MIN_TCP_PACKET : MIN_UDP_PACKET) + (ipv6 ? 20 : 0);
        // The mean packet size varies +-30 % around the service's typical size.
        double mean = typical * (0.7 + 0.6 * rnd.nextDouble());
        long b = Math.round(packets * mean);
        return Math.max(packets * min, Math.min(packets * MAX_PACKET, b));
    }

    private long duration(SplittableRandom rnd, long packets) {
        if (packets == 1) {
            return 0;
        }
        // Roughly 50 ms per packet with a wide spread, capped by the active timeout.
        double d = packets * 50.0 * Math.exp(gaussian(rnd));
        return Math.min(profile.activeTimeoutMillis(), Math.max(1L, Math.round(d)));
    }

    private static int tcpFlags(SplittableRandom rnd, long packets, long duration) {
        if (packets <= 2 && rnd.nextDouble() < 0.3) {
            return rnd.nextBoolean() ? TCP_SYN : TCP_SYN | TCP_RST | TCP_ACK; // scans, refusals
        }
        if (duration >= 30_000 && rnd.nextDouble() < 0.7) {
            return TCP_PSH | TCP_ACK; // long flow cut by the active timeout
        }
        return rnd.nextDouble() < 0.9
                ? TCP_FIN | TCP_SYN | TCP_PSH | TCP_ACK
                : TCP_SYN | TCP_RST | TCP_PSH | TCP_ACK;
    }

    private static int dscp(SplittableRandom rnd, Service svc) {
        if (svc.port() == 5060) {
            return 46;
        }
        double u = rnd.nextDouble();
        for (int i = 0; i < DSCP.length; i++) {
            if (u < DSCP_CUMULATIVE[i]) {
                return DSCP[i];
            }
        }
        return 0;
    }

    /** Standard normal variate (Box-Muller; one of the pair is enough here). */
    private static double gaussian(SplittableRandom rnd) {
        double u1 = 1.0 - rnd.nextDouble();
        double u2 = rnd.nextDouble();
        return Math.sqrt(-2.0 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    }

    /** Mixes three longs into a well-spread seed (SplitMix64 finalizer over a combination). */
    static long mix(long a, long b, long c) {
        long z = a * 0x9e3779b97f4a7c15L + b * 0xc2b2ae3d27d4eb4fL + c * 0x165667b19e3779f9L;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
