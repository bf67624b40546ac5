// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.clickhouse;

import io.flowhouse.codec.clickhouse.ClickHouseServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real {@code clickhouse-server} (the Debian package, 18.16 on the CI machine) run as a child
 * process in its own temporary directory: generated minimal {@code config.xml} and {@code
 * users.xml} ({@link ClickHouseServerConfig}, as {@code ./flowhouse services} writes them), free
 * random HTTP and native ports on 127.0.0.1 only, its own data, tmp and user files paths, logs to
 * files. {@link #stop()} and {@link #start()} keep the ports and the data directory, so a test can
 * take ClickHouse away for a while and bring the same server back; {@link #kill()} is {@code kill
 * -9}.
 *
 * <pre>{@code
 * try (LocalClickHouse ch = LocalClickHouse.launch()) {
 *     ch.execute("CREATE DATABASE flowhouse");
 *     ch.stop();      // SIGTERM, waits for exit
 *     ch.start();     // same ports, same data
 * }
 * }</pre>
 */
public final class LocalClickHouse implements ClickHouseService {

    /**
     * Where Debian puts the server binary; overridable with {@code -Dflowhouse.clickhouse.server}.
     */
    public static final String DEFAULT_BINARY = "/usr/sbin/clickhouse-server";

    /** System property naming the server binary. */
    public static final String BINARY_PROPERTY = "flowhouse.clickhouse.server";

    private static final String HOST = ClickHouseServerConfig.LISTEN_HOST;
    private static final String USER = "default";

    /**
     * How the server is set up.
     *
     * @param binary the clickhouse-server executable
     * @param startTimeout how long to wait for {@code SELECT 1} after starting
     * @param stopTimeout how long to wait for the process to exit after SIGTERM, then SIGKILL
     * @param keepDirectory keep the temporary directory after {@link #close()} (for post-mortems)
     * @param memoryLimitBytes per-query memory limit in the default profile
     */
    public record Options(
            Path binary,
            Duration startTimeout,
            Duration stopTimeout,
            boolean keepDirectory,
            long memoryLimitBytes) {

        public static Options defaults() {
            return new Options(
                    Paths.get(System.getProperty(BINARY_PROPERTY, DEFAULT_BINARY)),
                    Duration.ofSeconds(60),
                    Duration.ofSeconds(60),
                    false,
                    4_000_000_000L);
        }

        public Options withKeepDirectory(boolean keep) {
            return new Options(binary, startTimeout, stopTimeout, keep, memoryLimitBytes);
        }
    }

    private final Options options;
    private final Path dir;
    private final int httpPort;
    private final int nativePort;
    private final ClickHouseHttp http = new ClickHouseHttp();
    private final Thread shutdownHook;
    private Process process;
    private boolean closed;

    private LocalClickHouse(Options options, Path dir, int httpPort, int nativePort) {
        this.options = options;
        this.dir = dir;
        this.httpPort = httpPort;
        this.nativePort = nativePort;
        this.shutdownHook = new Thread(this::destroyQuietly, "local-clickhouse-shutdown");
    }

    /** True when the server binary is present and executable here. */
    public static boolean isAvailable() {
        return isAvailable(Options.defaults().binary());
    }

    public static boolean isAvailable(Path binary) {
        return Files.isRegularFile(binary) && Files.isExecutable(binary);
    }

    /** Creates the directory and configuration, starts the server and waits until it answers. */
    public static LocalClickHouse launch(Options options) {
        if (!isAvailable(options.binary())) {
            throw new IllegalStateException(
                    "clickhouse-server not found at "
                            + options.binary()
                            + " (install the clickhouse-server package or set -D"
                            + BINARY_PROPERTY
                            + ")");
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("flowhouse-clickhouse-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int[] ports = freePorts(2);
        LocalClickHouse ch = new LocalClickHouse(options, dir, ports[0], ports[1]);
        try {
            ch.writeConfig();
            Runtime.getRuntime().addShutdownHook(ch.shutdownHook);
            ch.start();
            return ch;
        } catch (RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Launches with {@link Options#defaults()}. */
    public static LocalClickHouse launch() {
        return launch(Options.defaults());
    }

    /**
     * (Re)starts the server process on the same ports and data directory and waits until it answers
     * {@code SELECT 1}. A no-op when it is already running.
     */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (isRunning()) {
            return;
        }
        ProcessBuilder pb =
                new ProcessBuilder(
                                options.binary().toString(),
                                "--config-file=" + dir.resolve("config.xml"))
                        .directory(dir.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(
                                ProcessBuilder.Redirect.appendTo(
                                        dir.resolve("log/stdout.log").toFile()));
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + options.binary(), e);
        }
        long deadline = System.nanoTime() + options.startTimeout().toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "clickhouse-server exited with "
                                + process.exitValue()
                                + " during start; log tail:\n"
                                + logTail(40));
            }
            if (http.ping(httpUrl(), USER, "", Duration.ofSeconds(2))) {
                return;
            }
            sleep(100);
        }
        process.destroyForcibly();
        throw new IllegalStateException(
                "clickhouse-server did not answer within "
                        + options.startTimeout()
                        + "; log tail:\n"
                        + logTail(40));
    }

    /** SIGTERM, then waits for the process to exit (SIGKILL after the stop timeout). */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(options.stopTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly()
                        .waitFor(options.stopTimeout().toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        process = null;
    }

    /** {@code kill -9}: no shutdown, parts in flight are lost as after a crash. */
    public synchronized void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly();
        try {
            process.waitFor(options.stopTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    /** Stops and starts again (same ports, same data). */
    public void restart() {
        stop();
        start();
    }

    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** The process id, while running. */
    public synchronized Optional<Long> pid() {
        return isRunning() ? Optional.of(process.pid()) : Optional.empty();
    }

    /** The server's own directory: config.xml, users.xml, data/, log/. */
    public Path directory() {
        return dir;
    }

    @Override
    public String httpUrl() {
        return "http://" + HOST + ":" + httpPort;
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int httpPort() {
        return httpPort;
    }

    @Override
    public int nativePort() {
        return nativePort;
    }

    @Override
    public String user() {
        return USER;
    }

    @Override
    public String password() {
        return "";
    }

    @Override
    public List<String> query(String sql) {
        return http.query(httpUrl(), USER, "", sql);
    }

    /** The last lines of the server log, for failure messages. */
    public String logTail(int lines) {
        List<String> out = new ArrayList<>();
        for (String name : List.of("log/stdout.log", "log/server.err.log", "log/server.log")) {
            Path p = dir.resolve(name);
            if (!Files.isRegularFile(p)) {
                continue;
            }
            try {
                List<String> all = Files.readAllLines(p, StandardCharsets.UTF_8);
                out.add("== " + name);
                out.addAll(all.subList(Math.max(0, all.size() - lines), all.size()));
            } catch (IOException | UncheckedIOException e) {
                out.add("== " + name + ": " + e);
            }
        }
        return String.join("\n", out);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(shutdownHook);
            } catch (IllegalStateException ignored) {
                // the JVM is already shutting down; the hook runs anyway
            }
            if (!options.keepDirectory()) {
                deleteRecursively(dir);
            }
        }
    }

    /** The JVM is exiting without {@link #close()}: do not leave a server or its files behind. */
    private void destroyQuietly() {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            try {
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!options.keepDirectory()) {
            deleteRecursively(dir);
        }
    }

    private void writeConfig() {
        try {
            new ClickHouseServerConfig(
                            dir.toAbsolutePath(),
                            dir.toAbsolutePath().resolve("log"),
                            "server",
                            2,
                            httpPort,
                            nativePort,
                            options.memoryLimitBytes(),
                            "",
                            "")
                    .write();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Distinct free TCP ports on 127.0.0.1, all held open until every one is chosen. */
    static int[] freePorts(int n) {
        List<ServerSocket> sockets = new ArrayList<>();
        try {
            int[] ports = new int[n];
            for (int i = 0; i < n; i++) {
                ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(HOST));
                s.setReuseAddress(true);
                sockets.add(s);
                ports[i] = s.getLocalPort();
            }
            return ports;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (ServerSocket s : sockets) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // nothing to free
                }
            }
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.deleteIfExists(p);
                                } catch (IOException ignored) {
                                    // best effort on a temp directory
                                }
                            });
        } catch (IOException | UncheckedIOException ignored) {
            // best effort on a temp directory
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for clickhouse", e);
        }
    }
}
