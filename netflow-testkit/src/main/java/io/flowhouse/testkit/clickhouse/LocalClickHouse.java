// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.clickhouse;

import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.ServiceProcess;
import io.flowhouse.services.clickhouse.ClickHouseClusterConfig;
import io.flowhouse.services.clickhouse.ClickHouseServer;
import io.flowhouse.services.clickhouse.ClickHouseServerConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A real {@code clickhouse-server} (the Debian package, 18.16 on the CI machine) for one test
 * class: local-services' {@link ClickHouseServer}, started as every local service is ({@link
 * ServiceProcess}), in its own temporary directory on free random HTTP and native ports on
 * 127.0.0.1. {@link #stop()} and {@link #start()} keep the ports and the data directory, so a test
 * can take ClickHouse away for a while and bring the same server back; {@link #kill()} is {@code
 * kill -9}.
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

    /** Where Debian puts the server binary; overridable with {@value #BINARY_PROPERTY}. */
    public static final String DEFAULT_BINARY = ClickHouseServer.DEBIAN_BINARY.toString();

    /** System property naming the server binary. */
    public static final String BINARY_PROPERTY = ClickHouseServer.BINARY_PROPERTY;

    private static final String HOST = ClickHouseServerConfig.LISTEN_HOST;
    private static final String USER = "default";

    /**
     * How the server is set up.
     *
     * @param binary the clickhouse-server executable
     * @param startTimeout how long to wait for the server to answer after starting
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
                    Path.of(System.getProperty(BINARY_PROPERTY, DEFAULT_BINARY)),
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
    private final ClickHouseServer server;
    private final ServiceProcess process;
    private final ClickHouseHttp http = new ClickHouseHttp();
    private final Thread shutdownHook;
    private boolean closed;

    private LocalClickHouse(Options options, Path dir, int httpPort, int nativePort) {
        this(options, dir, httpPort, nativePort, null);
    }

    /** One replica of a {@link LocalClickHouseCluster} (not started). */
    LocalClickHouse(
            Options options,
            Path dir,
            int httpPort,
            int nativePort,
            ClickHouseClusterConfig cluster) {
        this.options = options;
        this.dir = dir;
        ClickHouseServer plain =
                new ClickHouseServer(
                        "server",
                        options.binary(),
                        new ClickHouseServerConfig(
                                dir,
                                dir.resolve("log"),
                                "server",
                                2,
                                httpPort,
                                nativePort,
                                options.memoryLimitBytes(),
                                "",
                                ""));
        this.server = cluster == null ? plain : plain.withCluster(cluster);
        this.process =
                new ServiceProcess(
                        server,
                        dir,
                        dir.resolve("log"),
                        options.startTimeout(),
                        options.stopTimeout());
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
            dir = Files.createTempDirectory("flowhouse-clickhouse-").toAbsolutePath();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int[] ports = LocalPorts.free(2);
        LocalClickHouse ch = new LocalClickHouse(options, dir, ports[0], ports[1]);
        try {
            ch.registerShutdownHook();
            ch.start();
            return ch;
        } catch (RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    void registerShutdownHook() {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Launches with {@link Options#defaults()}. */
    public static LocalClickHouse launch() {
        return launch(Options.defaults());
    }

    /**
     * (Re)starts the server process on the same ports and data directory and waits until it
     * answers. A no-op when it is already running.
     */
    public synchronized void start() {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        try {
            process.start();
        } catch (IllegalStateException e) {
            throw new IllegalStateException(e.getMessage() + "\n" + logTail(40), e);
        }
    }

    /** SIGTERM, then waits for the process to exit (SIGKILL after the stop timeout). */
    public synchronized void stop() {
        process.stop();
    }

    /** {@code kill -9}: no shutdown, parts in flight are lost as after a crash. */
    public synchronized void kill() {
        process.kill();
    }

    /** Stops and starts again (same ports, same data). */
    public void restart() {
        stop();
        start();
    }

    public synchronized boolean isRunning() {
        return process.isRunning();
    }

    /** The process id, while running. */
    public synchronized Optional<Long> pid() {
        return process.pid().isPresent()
                ? Optional.of(process.pid().getAsLong())
                : Optional.empty();
    }

    /** The server's own directory: config.xml, users.xml, data/, log/. */
    public Path directory() {
        return dir;
    }

    @Override
    public String httpUrl() {
        return server.httpUrl();
    }

    @Override
    public String host() {
        return HOST;
    }

    @Override
    public int httpPort() {
        return server.serverConfig().httpPort();
    }

    @Override
    public int nativePort() {
        return server.serverConfig().nativePort();
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

    /** The last lines of the server's logs, for failure messages. */
    public String logTail(int lines) {
        List<String> out = new ArrayList<>();
        for (String name : List.of("log/server.out", "log/server.err.log", "log/server.log")) {
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
        try {
            process.kill();
        } catch (RuntimeException ignored) {
            // best effort at JVM exit
        }
        if (!options.keepDirectory()) {
            deleteRecursively(dir);
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
}
