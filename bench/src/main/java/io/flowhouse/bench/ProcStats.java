// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Reads what Linux says about a process and the UDP sockets: CPU time from {@code /proc/PID/stat},
 * resident memory from {@code /proc/PID/status}, and per-socket kernel receive drops from the
 * {@code drops} column of {@code /proc/net/udp} and {@code /proc/net/udp6}.
 */
final class ProcStats {

    /** Clock ticks per second of {@code /proc/PID/stat} times (USER_HZ, 100 on Linux). */
    static final long TICKS_PER_SECOND = 100;

    private ProcStats() {}

    /** User + system CPU time of {@code pid} in ticks, or -1 if the process is gone. */
    static long cpuTicks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name (field 2) may hold spaces; fields after its ')' are fixed.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** A {@code /proc/PID/status} size field (VmRSS, VmHWM) in KiB, or -1. */
    static long statusKb(long pid, String field) {
        try {
            for (String line :
                    Files.readAllLines(
                            Path.of("/proc", Long.toString(pid), "status"),
                            StandardCharsets.UTF_8)) {
                if (line.startsWith(field + ":")) {
                    String v = line.substring(field.length() + 1).trim();
                    return Long.parseLong(v.split("\\s+")[0]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** Kernel drops summed over every UDP socket (v4 and v6) bound to local {@code port}. */
    static long udpDrops(int port) {
        return udpColumn(port, 12);
    }

    private static long udpColumn(int port, int column) {
        String hexPort = String.format(Locale.ROOT, ":%04X", port);
        long sum = 0;
        for (String table : List.of("/proc/net/udp", "/proc/net/udp6")) {
            List<String> lines;
            try {
                lines = Files.readAllLines(Path.of(table), StandardCharsets.UTF_8);
            } catch (IOException e) {
                continue;
            }
            for (int i = 1; i < lines.size(); i++) {
                String[] f = lines.get(i).trim().split("\\s+");
                if (f.length > column && f[1].endsWith(hexPort)) {
                    sum += Long.parseLong(f[column]);
                }
            }
        }
        return sum;
    }
}
