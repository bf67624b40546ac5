// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real capture agent in its own JVM ({@code io.flowhouse.agent.CaptureAgentMain --config FILE}),
 * started from this test's class path with a small heap. Its output goes to a log file the test can
 * search; it can be killed with SIGKILL and started again on the same config (same UDP port, same
 * spool directory).
 */
final class AgentProcess implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

    private final Path config;
    private final Path log;
    private final int metricsPort;
    private final List<String> prefix;
    private final String metricsHost;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private Process process;
    private int starts;

    AgentProcess(Path config, Path log, int metricsPort) {
        this(config, log, List.of(), "127.0.0.1", metricsPort);
    }

    /**
     * An agent started through {@code prefix} (e.g. {@code ip netns exec NS}, which execs the JVM
     * in place, so the process is the JVM itself), its metrics at {@code metricsHost}.
     */
    AgentProcess(Path config, Path log, List<String> prefix, String metricsHost, int metricsPort) {
        this.config = config;
        this.log = log;
        this.prefix = List.copyOf(prefix);
        this.metricsHost = metricsHost;
        this.metricsPort = metricsPort;
    }

    /** Starts the JVM and waits until its UDP listeners are bound (its health lists them). */
    AgentProcess start() throws IOException, InterruptedException {
        if (process != null && process.isAlive()) {
            return this;
        }
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-Xmx256m");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-Dlog4j2.configurationFile=" + log4jConfig());
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add("io.flowhouse.agent.CaptureAgentMain");
        cmd.add("--config");
        cmd.add(config.toString());
        starts++;
        Files.writeString(
                log,
                "--- start " + starts + "\n",
                StandardCharsets.UTF_8,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        process =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "the agent exited with " + process.exitValue() + ": " + logText());
            }
            String health = get("/health");
            if (health != null && health.contains("\"udpPorts\":[") && !health.contains("[]")) {
                return this;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the agent did not bind within " + READY_TIMEOUT);
    }

    /** SIGKILL: no shutdown hook, no drain, no flush. Returns once the process is gone. */
    void kill9() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the agent did not die");
        }
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process != null && process.isAlive();
    }

    int starts() {
        return starts;
    }

    /** The value of one Prometheus sample (0 when absent), e.g. {@code name{reason="X"}}. */
    long metric(String nameAndLabels) {
        String text = get("/metrics");
        if (text == null) {
            throw new IllegalStateException("no metrics from the agent");
        }
        Matcher m =
                Pattern.compile("(?m)^" + Pattern.quote(nameAndLabels) + " ([0-9.eE+-]+)$")
                        .matcher(text);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : 0L;
    }

    /** Sum of every sample of a metric family whose line starts with {@code prefix}. */
    long metricSum(String prefix) {
        String text = get("/metrics");
        long sum = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith(prefix) && !line.startsWith("#")) {
                sum += (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    String health() {
        return get("/health");
    }

    String logText() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGTERM and wait (the agent drains and fsyncs its spool). */
    @Override
    public void close() {
        if (process != null && process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(60, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    private String get(String path) {
        try {
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(
                                            URI.create(
                                                    "http://"
                                                            + metricsHost
                                                            + ":"
                                                            + metricsPort
                                                            + path))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return r.body();
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static String log4jConfig() {
        java.net.URL url = AgentProcess.class.getResource("/faults/log4j2-agent.properties");
        if (url == null) {
            throw new IllegalStateException(
                    "faults/log4j2-agent.properties is not on the class path");
        }
        return url.toString();
    }
}
