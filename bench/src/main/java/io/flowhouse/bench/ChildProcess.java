// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.services.LocalPorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A process the benchmark started, logging to a file; stopped by its own pid only. */
final class ChildProcess {
    private final String name;
    private final Process process;
    private final Path log;

    private ChildProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static ChildProcess start(String name, List<String> command, Path log) throws IOException {
        Process p =
                new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        return new ChildProcess(name, p, log);
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Fails with the end of the log if the process has exited. */
    void requireAlive() throws IOException {
        if (!process.isAlive()) {
            throw new IOException(name + " exited with " + process.exitValue() + ": " + logTail());
        }
    }

    String logTail() {
        try {
            String s = Files.readString(log, StandardCharsets.UTF_8);
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** SIGTERM, then SIGKILL after {@code seconds}; returns the exit code (-1 if killed). */
    int stop(long seconds) throws InterruptedException {
        if (!process.isAlive()) {
            return process.exitValue();
        }
        process.destroy();
        if (process.waitFor(seconds, TimeUnit.SECONDS)) {
            return process.exitValue();
        }
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
        return -1;
    }

    /** Waits until a UDP socket is bound to {@code port} (at most {@code seconds}). */
    void awaitUdp(int port, long seconds) throws IOException {
        if (!LocalPorts.awaitUdpBound(
                process.toHandle(), List.of(port), Duration.ofSeconds(seconds))) {
            requireAlive();
            throw new IOException(name + " did not bind UDP port " + port + ": " + logTail());
        }
    }
}
