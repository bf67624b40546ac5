// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.services;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts, probes and stops the real local services (Kafka, ClickHouse, a Flink standalone session
 * cluster) as background processes in one state directory. Everything it starts is recorded in a
 * pid file, and it stops only what those pid files name. The launcher's commands, the demo, the
 * benchmark harness and the integration tests all go through this class.
 *
 * <pre>{@code
 * ServicesManager services = new ServicesManager(config);
 * services.startAll();                 // returns when every service answers
 * services.kill(ServiceKind.FLINK_TASKMANAGER);   // kill -9, for fault tests
 * services.start(ServiceKind.FLINK_TASKMANAGER);  // a fresh TaskManager registers
 * services.stopAll();
 * }</pre>
 */
public final class ServicesManager {

    private static final Logger LOG = LoggerFactory.getLogger(ServicesManager.class);

    private static final Duration PROBE_INTERVAL = Duration.ofMillis(250);

    private final ServicesConfig config;
    private final Map<ServiceKind, LocalService> services = new EnumMap<>(ServiceKind.class);
    private final Map<ServiceKind, ManagedProcess> processes = new EnumMap<>(ServiceKind.class);

    public ServicesManager(ServicesConfig config) {
        this.config = config;
        services.put(ServiceKind.CLICKHOUSE, new ClickHouseServer(config));
        services.put(ServiceKind.KAFKA, new KafkaBroker(config));
        services.put(ServiceKind.FLINK_JOBMANAGER, new FlinkJobManager(config));
        services.put(ServiceKind.FLINK_TASKMANAGER, new FlinkTaskManager(config));
        services.forEach(
                (kind, service) ->
                        processes.put(
                                kind,
                                new ManagedProcess(
                                        service.name(),
                                        config.pidDir(),
                                        config.logDir(),
                                        service.marker())));
    }

    public ServicesConfig config() {
        return config;
    }

    /** Starts every service that does not run yet, in order, and saves the ports. */
    public void startAll() {
        startAll(List.of(ServiceKind.values()));
    }

    /** Starts the given services in {@link ServiceKind} order. */
    public void startAll(List<ServiceKind> kinds) {
        config.save();
        for (ServiceKind kind : ServiceKind.values()) {
            if (kinds.contains(kind)) {
                start(kind);
            }
        }
    }

    /**
     * Starts one service unless its process already runs, and waits until it answers. A service
     * that does not come up is stopped again and the error carries the end of its log.
     */
    public ServiceStatus start(ServiceKind kind) {
        LocalService service = services.get(kind);
        ManagedProcess process = processes.get(kind);
        Optional<ProcessHandle> running = process.running();
        if (running.isPresent()) {
            if (service instanceof FlinkTaskManager tm) {
                tm.recoverResourceId(running.get());
            }
            awaitAnswer(kind, running.get());
            return status(kind);
        }
        for (int port : service.ports()) {
            if (!isFree(port)) {
                throw new IllegalStateException(
                        service.name()
                                + ": port "
                                + port
                                + " on 127.0.0.1 is in use by another process;"
                                + " stop it or choose another port (see ./flowhouse services --help)");
            }
        }
        ProcessHandle handle;
        try {
            Files.createDirectories(service.workDir());
            service.prepare();
            handle = process.start(service.command(), service.workDir(), service.environment());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + service.name(), e);
        }
        LOG.info("started {} as pid {}", service.name(), handle.pid());
        try {
            awaitAnswer(kind, handle);
        } catch (RuntimeException e) {
            process.stop(config.stopTimeout());
            throw e;
        }
        return status(kind);
    }

    private void awaitAnswer(ServiceKind kind, ProcessHandle handle) {
        LocalService service = services.get(kind);
        long deadline = System.nanoTime() + config.startTimeout().toNanos();
        LocalService.Health health = LocalService.Health.down("not probed");
        while (System.nanoTime() < deadline) {
            if (!handle.isAlive()) {
                throw new IllegalStateException(
                        service.name()
                                + " exited during start; end of "
                                + processes.get(kind).logFile()
                                + ":\n"
                                + processes.get(kind).logTail(30));
            }
            health = service.probe();
            if (health.answers()) {
                return;
            }
            sleep(PROBE_INTERVAL);
        }
        throw new IllegalStateException(
                service.name()
                        + " did not answer within "
                        + config.startTimeout().toSeconds()
                        + " s ("
                        + health.detail()
                        + "); end of "
                        + processes.get(kind).logFile()
                        + ":\n"
                        + processes.get(kind).logTail(30));
    }

    /** Stops every service that a pid file names, in reverse start order. */
    public List<ServiceKind> stopAll() {
        List<ServiceKind> stopped = new ArrayList<>();
        RuntimeException first = null;
        ServiceKind[] kinds = ServiceKind.values();
        for (int i = kinds.length - 1; i >= 0; i--) {
            try {
                if (stop(kinds[i])) {
                    stopped.add(kinds[i]);
                }
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
        return stopped;
    }

    /** SIGTERM, then SIGKILL after the stop timeout; true when a process was stopped. */
    public boolean stop(ServiceKind kind) {
        boolean stopped = processes.get(kind).stop(config.stopTimeout());
        if (stopped) {
            LOG.info("stopped {}", kind.serviceName());
        }
        return stopped;
    }

    /**
     * Installs clickhouse-server with apt when it is missing and this runs as root; returns whether
     * the configured binary exists afterwards.
     */
    public boolean ensureClickHouseInstalled(java.io.PrintStream out) throws InterruptedException {
        return ClickHouseInstaller.ensureInstalled(config.clickhouseBinary(), out);
    }

    /** {@code kill -9}, for fault tests: no clean shutdown. */
    public boolean kill(ServiceKind kind) {
        return processes.get(kind).kill();
    }

    /** The pid of a running service. */
    public OptionalLong pid(ServiceKind kind) {
        return processes
                .get(kind)
                .running()
                .map(p -> OptionalLong.of(p.pid()))
                .orElse(OptionalLong.empty());
    }

    /** Probes every service. */
    public List<ServiceStatus> status() {
        List<ServiceStatus> all = new ArrayList<>();
        for (ServiceKind kind : ServiceKind.values()) {
            all.add(status(kind));
        }
        return all;
    }

    public ServiceStatus status(ServiceKind kind) {
        LocalService service = services.get(kind);
        Optional<ProcessHandle> running = processes.get(kind).running();
        if (service instanceof FlinkTaskManager tm && running.isPresent()) {
            tm.recoverResourceId(running.get());
        }
        LocalService.Health health = service.probe();
        if (running.isEmpty() && service instanceof FlinkTaskManager) {
            // Without our process the JobManager may still list a TaskManager it has not timed out.
            health = LocalService.Health.down("not running");
        }
        return new ServiceStatus(
                kind,
                running.map(p -> OptionalLong.of(p.pid())).orElse(OptionalLong.empty()),
                health.answers(),
                service.endpoint(),
                health.detail());
    }

    /** The log file a service writes its stdout and stderr to. */
    public java.nio.file.Path logFile(ServiceKind kind) {
        return processes.get(kind).logFile();
    }

    static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
