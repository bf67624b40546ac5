// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.metrics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Kernel counters of the agent's UDP sockets, from {@code /proc/net/udp} and {@code
 * /proc/net/udp6}: the {@code drops} column (datagrams the kernel discarded because the socket's
 * receive buffer was full) and the {@code rx_queue} column, summed per local port over every socket
 * bound to it (SO_REUSEPORT groups have several). On systems without procfs both maps are empty.
 *
 * @param dropsByPort cumulative drops per local port
 * @param queuedByPort bytes queued per local port now
 */
public record KernelUdpStats(Map<Integer, Long> dropsByPort, Map<Integer, Long> queuedByPort) {

    private static final List<Path> FILES =
            List.of(Path.of("/proc/net/udp"), Path.of("/proc/net/udp6"));

    public static KernelUdpStats none() {
        return new KernelUdpStats(Map.of(), Map.of());
    }

    /** Reads the counters of sockets bound to the given local ports. */
    public static KernelUdpStats read(Set<Integer> ports) {
        Map<Integer, Long> drops = new TreeMap<>();
        Map<Integer, Long> queued = new TreeMap<>();
        for (Path file : FILES) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.US_ASCII);
            } catch (IOException e) {
                continue;
            }
            parse(lines, ports, drops, queued);
        }
        return new KernelUdpStats(Map.copyOf(drops), Map.copyOf(queued));
    }

    /**
     * Parses the lines of one file. Columns: {@code sl local_address rem_address st
     * tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ref pointer drops}, addresses as
     * {@code HEXADDR:HEXPORT}.
     */
    static void parse(
            List<String> lines,
            Set<Integer> ports,
            Map<Integer, Long> drops,
            Map<Integer, Long> queued) {
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 13 || !f[0].endsWith(":")) {
                continue;
            }
            int colon = f[1].lastIndexOf(':');
            int queueColon = f[4].indexOf(':');
            if (colon < 0 || queueColon < 0) {
                continue;
            }
            try {
                int port = Integer.parseInt(f[1].substring(colon + 1), 16);
                if (!ports.contains(port)) {
                    continue;
                }
                long rx = Long.parseLong(f[4].substring(queueColon + 1), 16);
                long d = Long.parseLong(f[f.length - 1]);
                drops.merge(port, d, Long::sum);
                queued.merge(port, rx, Long::sum);
            } catch (NumberFormatException e) {
                // not a socket line
            }
        }
    }

    public long totalDrops() {
        return dropsByPort.values().stream().mapToLong(Long::longValue).sum();
    }
}
