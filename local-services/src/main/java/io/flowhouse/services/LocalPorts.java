// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Ports of this host: free TCP ports on 127.0.0.1 for servers that tests and the demo start beside
 * others, and whether a UDP port is bound (a collector that came up).
 */
public final class LocalPorts {

    private LocalPorts() {}

    /**
     * {@code count} distinct free ports, none of them in {@code avoid}; every one is held open
     * until all are chosen, so the kernel cannot hand out the same port twice.
     */
    public static int[] free(int count, int... avoid) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[count];
            int found = 0;
            for (int attempt = 0; found < count && attempt < count + 20; attempt++) {
                ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                sockets.add(socket);
                int candidate = socket.getLocalPort();
                boolean clash = false;
                for (int taken : avoid) {
                    clash |= taken == candidate;
                }
                if (!clash) {
                    ports[found++] = candidate;
                }
            }
            if (found < count) {
                throw new IOException("no free loopback port found");
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket socket : sockets) {
                try {
                    socket.close();
                } catch (IOException ignored) {
                    // nothing held
                }
            }
        }
    }

    /** True when nothing listens on {@code port} on 127.0.0.1. */
    public static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** True when some UDP socket (v4 or v6, any address) is bound to {@code port}. */
    public static boolean udpBound(int port) {
        String hexPort = String.format(Locale.ROOT, ":%04X ", port);
        for (String table : List.of("/proc/net/udp", "/proc/net/udp6")) {
            try {
                if (Files.readString(Path.of(table)).contains(hexPort)) {
                    return true;
                }
            } catch (IOException e) {
                // no such table (no IPv6): try the next
            }
        }
        return false;
    }

    /**
     * Waits until every one of {@code ports} is bound, while {@code owner} (the process expected to
     * bind them) lives; false when it died or the time ran out.
     */
    public static boolean awaitUdpBound(
            ProcessHandle owner, List<Integer> ports, Duration timeout) {
        boolean[] bound = {false};
        Retry.within(timeout)
                .every(Duration.ofMillis(250))
                .until(
                        () -> {
                            bound[0] =
                                    owner.isAlive()
                                            && ports.stream().allMatch(LocalPorts::udpBound);
                            return bound[0] || !owner.isAlive();
                        });
        return bound[0];
    }

    /**
     * True when {@code owner} or one of its descendants holds the socket listening on TCP {@code
     * port} (Linux: the LISTEN rows of {@code /proc/net/tcp*} against the processes' socket
     * descriptors). False when another process holds it, or when it cannot be told (no /proc, the
     * owner's descriptors unreadable): a caller about to send a secret then does not.
     */
    public static boolean tcpListenerOwnedBy(ProcessHandle owner, int port) {
        java.util.Set<String> inodes = new java.util.HashSet<>();
        String hexPort = String.format(Locale.ROOT, ":%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(table));
            } catch (IOException e) {
                continue; // no such table (no IPv6)
            }
            for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
                // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && f[1].endsWith(hexPort) && f[3].equals("0A")) {
                    inodes.add("socket:[" + f[9] + "]");
                }
            }
        }
        if (inodes.isEmpty()) {
            return false;
        }
        List<ProcessHandle> candidates = new ArrayList<>();
        candidates.add(owner);
        owner.descendants().forEach(candidates::add);
        for (ProcessHandle p : candidates) {
            try (java.util.stream.Stream<Path> fds =
                    Files.list(Path.of("/proc", Long.toString(p.pid()), "fd"))) {
                boolean holds =
                        fds.anyMatch(
                                fd -> {
                                    try {
                                        return inodes.contains(
                                                Files.readSymbolicLink(fd).toString());
                                    } catch (IOException e) {
                                        return false;
                                    }
                                });
                if (holds) {
                    return true;
                }
            } catch (IOException e) {
                // gone, or not ours to read: try the next
            }
        }
        return false;
    }
}
