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
}
