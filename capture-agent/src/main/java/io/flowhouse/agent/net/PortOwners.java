// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.net;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Who holds a local port, from Linux procfs: the sockets in {@code /proc/net/{udp,udp6,tcp,tcp6}}
 * and the {@code socket:[inode]} links under {@code /proc/PID/fd}. Used at start-up only, to say
 * what is in the way instead of a bare "Address already in use", and to notice a second agent on
 * the same UDP ports: with SO_REUSEPORT the kernel lets a second process of the same user bind them
 * and quietly splits the traffic between the two. Without procfs nothing is found.
 */
public final class PortOwners {

    private static final List<Path> UDP =
            List.of(Path.of("/proc/net/udp"), Path.of("/proc/net/udp6"));
    private static final List<Path> TCP =
            List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

    /** TCP state LISTEN in procfs. */
    private static final String LISTEN = "0A";

    private PortOwners() {}

    /**
     * The holder of a UDP socket bound to {@code port} on an address that overlaps {@code host}
     * (either is a wildcard, or they are equal), e.g. {@code pid 4242 (java ... CaptureAgentMain)};
     * empty when there is none.
     */
    public static Optional<String> udp(InetAddress host, int port) {
        return find(UDP, host, port, null);
    }

    /** As {@link #udp}, for a listening TCP socket. */
    public static Optional<String> tcpListener(InetAddress host, int port) {
        return find(TCP, host, port, LISTEN);
    }

    private static Optional<String> find(
            List<Path> files, InetAddress host, int port, String state) {
        for (Path file : files) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
            } catch (IOException e) {
                continue;
            }
            for (String line : lines) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 10 || !f[0].endsWith(":")) {
                    continue;
                }
                int colon = f[1].lastIndexOf(':');
                if (colon < 0) {
                    continue;
                }
                try {
                    if (Integer.parseInt(f[1].substring(colon + 1), 16) != port
                            || (state != null && !state.equalsIgnoreCase(f[3]))) {
                        continue;
                    }
                    InetAddress local = address(f[1].substring(0, colon));
                    if (overlap(host, local)) {
                        return Optional.of(owner(Long.parseLong(f[9])));
                    }
                } catch (NumberFormatException | UnknownHostException e) {
                    // not a socket line
                }
            }
        }
        return Optional.empty();
    }

    /** A procfs address: 8 or 32 hex digits, each 32-bit word in host (little-endian) order. */
    static InetAddress address(String hex) throws UnknownHostException {
        byte[] b = new byte[hex.length() / 2];
        for (int w = 0; w < b.length / 4; w++) {
            for (int i = 0; i < 4; i++) {
                int at = w * 8 + (3 - i) * 2;
                b[w * 4 + i] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
            }
        }
        return InetAddress.getByAddress(b);
    }

    static boolean overlap(InetAddress a, InetAddress b) {
        if (a.isAnyLocalAddress() || b.isAnyLocalAddress()) {
            return true;
        }
        return Arrays.equals(v4(a), v4(b));
    }

    /** The address bytes, IPv4-mapped IPv6 as IPv4. */
    private static byte[] v4(InetAddress a) {
        byte[] b = a.getAddress();
        if (a instanceof Inet4Address || b.length != 16) {
            return b;
        }
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return b;
            }
        }
        return b[10] == (byte) 0xff && b[11] == (byte) 0xff ? Arrays.copyOfRange(b, 12, 16) : b;
    }

    /** "pid N (command line)" of the process with socket {@code inode}, or a vaguer phrase. */
    static String owner(long inode) {
        String link = "socket:[" + inode + "]";
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                try (DirectoryStream<Path> fds = Files.newDirectoryStream(proc.resolve("fd"))) {
                    for (Path fd : fds) {
                        try {
                            if (link.equals(Files.readSymbolicLink(fd).toString())) {
                                return "pid " + proc.getFileName() + command(proc);
                            }
                        } catch (IOException e) {
                            // closed meanwhile
                        }
                    }
                } catch (IOException e) {
                    // another user's process, or gone
                }
            }
        } catch (IOException e) {
            // no procfs
        }
        return "another process (socket inode " + inode + ", owner not visible to this user)";
    }

    private static String command(Path proc) {
        try {
            byte[] raw = Files.readAllBytes(proc.resolve("cmdline"));
            String cmd = new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').trim();
            if (cmd.isEmpty()) {
                return "";
            }
            // A java command line is mostly its class path: keep the start and the main class.
            if (cmd.length() > 160) {
                String[] words = cmd.split(" ");
                String main = "";
                for (String w : words) {
                    if (w.matches("[a-z]+(\\.[a-zA-Z0-9_$]+)+") && !w.startsWith("-")) {
                        main = w;
                    }
                }
                cmd = words[0] + " ... " + main;
            }
            return " (" + cmd + ")";
        } catch (IOException e) {
            return "";
        }
    }
}
