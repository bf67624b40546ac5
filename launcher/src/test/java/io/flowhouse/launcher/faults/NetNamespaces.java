// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import io.flowhouse.testkit.ServiceRequirement;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hosts of their own on this machine: network namespaces ({@code ip netns}) on one Linux bridge in
 * the root namespace, each with its own address on a veth pair, as two machines on one LAN. The
 * bridge holds {@code 10.231.S.1}, the hosts {@code 10.231.S.11}, {@code .12}, ...; a service
 * address (a VIP) can be moved from one host to another as a VRRP or anycast failover moves it.
 * Names carry this JVM's pid ({@code fh<pid>a}, {@code fh<pid>br}), so that a run finds and removes
 * what a dead run left ({@link #removeStale}) and never touches a live run's.
 */
final class NetNamespaces implements AutoCloseable {

    private static final Pattern OURS = Pattern.compile("^fh(\\d+)(?:[a-z]|br|v[a-z])$");

    private final String tag;
    private final int subnet;
    private final List<String> hosts = new ArrayList<>();
    private final Map<String, String> macs = new HashMap<>();
    private boolean bridgeUp;

    private NetNamespaces(String tag, int subnet) {
        this.tag = tag;
        this.subnet = subnet;
    }

    /**
     * Skips (or, in CI, fails) without root and iproute2; removes what dead runs left; creates the
     * bridge on a /24 that no route of this machine uses yet.
     */
    static NetNamespaces create() {
        ServiceRequirement.require(
                ServiceRequirement.findExecutable("ip").isPresent(), "iproute2 (the ip command)");
        ServiceRequirement.require(
                "root".equals(System.getProperty("user.name")),
                "root (network namespaces and veth pairs)");
        removeStale();
        String routes = ip("route", "show");
        long pid = ProcessHandle.current().pid();
        int subnet = -1;
        for (int i = 0; i < 200 && subnet < 0; i++) {
            int s = (int) ((pid + i) % 200) + 20;
            if (!routes.contains("10.231." + s + ".")) {
                subnet = s;
            }
        }
        if (subnet < 0) {
            throw new IllegalStateException("no free 10.231.x.0/24 for the test's bridge");
        }
        NetNamespaces n = new NetNamespaces("fh" + pid, subnet);
        try {
            ip("link", "add", n.bridge(), "type", "bridge");
            n.bridgeUp = true;
            ip("addr", "add", n.gateway() + "/24", "dev", n.bridge());
            ip("link", "set", n.bridge(), "up");
        } catch (RuntimeException e) {
            n.close();
            throw e;
        }
        return n;
    }

    /** The root namespace's address on the bridge: what the hosts reach the broker at. */
    String gateway() {
        return address(1);
    }

    /** {@code 10.231.S.last}. */
    String address(int last) {
        return "10.231." + subnet + "." + last;
    }

    /**
     * Adds host {@code letter} ({@code a}, {@code b}, ...) with address {@code 10.231.S.(10 + i)}
     * (i from 1 in creation order); returns the namespace's name.
     */
    String addHost(char letter) {
        String ns = tag + letter;
        String veth = tag + "v" + letter;
        ip("netns", "add", ns);
        hosts.add(ns);
        ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns);
        ip("link", "set", veth, "master", bridge());
        ip("link", "set", veth, "up");
        ip("-n", ns, "link", "set", "lo", "up");
        ip("-n", ns, "addr", "add", address(10 + hosts.size()) + "/24", "dev", "eth0");
        ip("-n", ns, "link", "set", "eth0", "up");
        Matcher m =
                Pattern.compile("link/ether ([0-9a-f:]{17})")
                        .matcher(ip("-n", ns, "link", "show", "eth0"));
        if (!m.find()) {
            throw new IllegalStateException("no MAC address on " + ns + " eth0");
        }
        macs.put(ns, m.group(1));
        return ns;
    }

    /** The host's own address. */
    String hostAddress(String ns) {
        return address(10 + hosts.indexOf(ns) + 1);
    }

    /** The command prefix that runs a program inside host {@code ns}. */
    static List<String> exec(String ns) {
        return List.of("ip", "netns", "exec", ns);
    }

    /** Another address of the root namespace on the bridge (a router of its own). */
    void addBridgeAddress(String address) {
        ip("addr", "add", address + "/24", "dev", bridge());
    }

    void addAddress(String ns, String address) {
        ip("-n", ns, "addr", "add", address + "/24", "dev", "eth0");
    }

    void removeAddress(String ns, String address) {
        ip("-n", ns, "addr", "del", address + "/24", "dev", "eth0");
    }

    /**
     * Moves a service address to host {@code to}: the new holder takes it, the root namespace's
     * neighbour entry is switched to the new holder in one step (what a gratuitous ARP does on a
     * LAN), and the old holder lets it go. Every datagram sent before the switch goes to the old
     * host, every one after to the new.
     */
    void moveAddress(String address, String from, String to) {
        addAddress(to, address);
        ip(
                "neigh",
                "replace",
                address,
                "lladdr",
                macs.get(to),
                "dev",
                bridge(),
                "nud",
                "permanent");
        removeAddress(from, address);
    }

    /**
     * The UDP counters of host {@code ns}'s kernel ({@code /proc/net/snmp}, line {@code Udp:}):
     * {@code InDatagrams} (queued to a socket), {@code NoPorts} (no socket on the port: dropped),
     * {@code InErrors} (receive buffer full, bad checksum: dropped), and the others.
     */
    static Map<String, Long> udpCounters(String ns) {
        String snmp = run(List.of("ip", "netns", "exec", ns, "cat", "/proc/net/snmp"));
        List<String[]> udp = new ArrayList<>();
        for (String line : snmp.split("\n")) {
            if (line.startsWith("Udp: ")) {
                udp.add(line.substring(5).trim().split("\\s+"));
            }
        }
        if (udp.size() < 2) {
            throw new IllegalStateException("no Udp lines in " + ns + "'s /proc/net/snmp");
        }
        Map<String, Long> counters = new HashMap<>();
        for (int i = 0; i < udp.get(0).length; i++) {
            counters.put(udp.get(0)[i], Long.parseLong(udp.get(1)[i]));
        }
        return counters;
    }

    private String bridge() {
        return tag + "br";
    }

    /** Deletes the hosts (their veth ends go with them) and the bridge; never throws. */
    @Override
    public void close() {
        for (String ns : hosts) {
            quietly(List.of("ip", "netns", "del", ns));
        }
        hosts.clear();
        if (bridgeUp) {
            quietly(List.of("ip", "link", "del", bridge()));
            bridgeUp = false;
        }
    }

    /** Removes the namespaces and links of runs whose JVM is gone. */
    static void removeStale() {
        for (String line : run(List.of("ip", "netns", "list")).split("\n")) {
            String name = line.trim().split("\\s+")[0];
            if (isStale(name)) {
                quietly(List.of("ip", "netns", "del", name));
            }
        }
        for (String line : run(List.of("ip", "-o", "link", "show")).split("\n")) {
            String[] f = line.split(":\\s+");
            if (f.length > 1) {
                String name = f[1].split("@")[0];
                if (isStale(name)) {
                    quietly(List.of("ip", "link", "del", name));
                }
            }
        }
    }

    private static boolean isStale(String name) {
        Matcher m = OURS.matcher(name);
        return m.matches()
                && ProcessHandle.of(Long.parseLong(m.group(1))).map(p -> !p.isAlive()).orElse(true);
    }

    private static String ip(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add("ip");
        cmd.addAll(List.of(args));
        return run(cmd);
    }

    private static void quietly(List<String> cmd) {
        try {
            run(cmd);
        } catch (RuntimeException e) {
            // Already gone.
        }
    }

    private static String run(List<String> cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", cmd) + " did not finish");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        String.format(
                                Locale.ROOT,
                                "%s exited with %d: %s",
                                String.join(" ", cmd),
                                p.exitValue(),
                                out.trim()));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", cmd), e);
        }
    }
}
