// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;

/**
 * What an integration test does when a service or tool it needs is missing.
 *
 * <p>Locally the test is skipped (a JUnit assumption), so a developer without, say, ClickHouse
 * still gets a green build of everything else. When the system property {@value #REQUIRED_PROPERTY}
 * is {@code true} (the pom's {@code ci} profile sets it) the test fails instead: CI never skips an
 * integration test because a service did not come up.
 */
public final class ServiceRequirement {

    /** The system property that turns a missing service into a failure. */
    public static final String REQUIRED_PROPERTY = "flowhouse.it.required";

    private ServiceRequirement() {}

    /** True when missing services fail the test instead of skipping it. */
    public static boolean isRequired() {
        return Boolean.parseBoolean(System.getProperty(REQUIRED_PROPERTY, "false"));
    }

    /**
     * Goes on when {@code available}; otherwise skips the test, or fails it when services are
     * required.
     *
     * @param what the missing thing and how to get it, e.g. "clickhouse-server on PATH (apt-get
     *     install clickhouse-server)"
     */
    public static void require(boolean available, String what) {
        if (available) {
            return;
        }
        String message = "missing: " + what;
        if (isRequired()) {
            throw new AssertionError(message + " (" + REQUIRED_PROPERTY + "=true)");
        }
        Assumptions.abort(message + " (skipped; set -D" + REQUIRED_PROPERTY + "=true to fail)");
    }

    /** Finds an executable on PATH (or as an absolute path), else skips or fails. */
    public static Path requireExecutable(String name, String howToInstall) {
        Optional<Path> found = findExecutable(name);
        require(found.isPresent(), name + " on PATH (" + howToInstall + ")");
        return found.orElseThrow();
    }

    /** Requires something to accept TCP connections on host:port. */
    public static void requireTcp(String host, int port, String what) {
        require(isListening(host, port), what + " listening on " + host + ":" + port);
    }

    /** Requires a file or directory to exist. */
    public static Path requireFile(Path path, String what) {
        require(path != null && Files.exists(path), what + " at " + path);
        return path;
    }

    /** Requires a Docker engine that Testcontainers can reach. */
    public static void requireDocker() {
        require(
                DockerClientFactory.instance().isDockerAvailable(),
                "a Docker engine for Testcontainers (images pinned in ContainerImages)");
    }

    /** Looks a command up on PATH the way a shell does. */
    public static Optional<Path> findExecutable(String name) {
        if (name.indexOf('/') >= 0) {
            Path direct = Path.of(name);
            return Files.isExecutable(direct) ? Optional.of(direct) : Optional.empty();
        }
        String pathVariable = System.getenv("PATH");
        if (pathVariable == null) {
            return Optional.empty();
        }
        for (String dir : pathVariable.split(File.pathSeparator)) {
            if (dir.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(dir, name);
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** True when a TCP connection to host:port succeeds within a second. */
    public static boolean isListening(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 1_000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
