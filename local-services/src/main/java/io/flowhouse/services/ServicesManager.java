// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import io.flowhouse.services.clickhouse.ClickHouseInstaller;
import io.flowhouse.services.clickhouse.ClickHouseServer;
import io.flowhouse.services.flink.FlinkJobManager;
import io.flowhouse.services.flink.FlinkTaskManager;
import io.flowhouse.services.kafka.KafkaProcess;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
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

    private final ServicesConfig config;
    private final Map<ServiceKind, ServiceProcess> processes = new EnumMap<>(ServiceKind.class);

    public ServicesManager(ServicesConfig config) {
        this.config = config;
        add(ServiceKind.CLICKHOUSE, ClickHouseServer.forServices(config));
        add(ServiceKind.KAFKA, new KafkaProcess(config));
        add(ServiceKind.FLINK_JOBMANAGER, new FlinkJobManager(config));
        add(ServiceKind.FLINK_TASKMANAGER, new FlinkTaskManager(config));
    }

    private void add(ServiceKind kind, LocalService service) {
        processes.put(
                kind,
                new ServiceProcess(
                        service,
                        config.pidDir(),
                        config.logDir(),
                        config.startTimeout(),
                        config.stopTimeout()));
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
        ServiceProcess process = processes.get(kind);
        boolean wasRunning = process.isRunning();
        process.start();
        if (!wasRunning) {
            LOG.info("started {} as pid {}", kind.serviceName(), process.pid().orElse(-1));
        }
        return status(kind);
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
        boolean stopped = processes.get(kind).stop();
        if (stopped) {
            LOG.info("stopped {}", kind.serviceName());
        }
        return stopped;
    }

    /**
     * Installs clickhouse-server with apt when it is missing and this runs as root; returns whether
     * the configured binary exists afterwards.
     */
    public boolean ensureClickHouseInstalled(PrintStream out) throws InterruptedException {
        return ClickHouseInstaller.ensureInstalled(config.clickhouseBinary(), out);
    }

    /** {@code kill -9}, for fault tests: no clean shutdown. */
    public boolean kill(ServiceKind kind) {
        return processes.get(kind).kill();
    }

    /** The pid of a running service. */
    public OptionalLong pid(ServiceKind kind) {
        return processes.get(kind).pid();
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
        ServiceProcess process = processes.get(kind);
        OptionalLong pid = process.pid();
        LocalService.Health health = process.health();
        return new ServiceStatus(
                kind, pid, health.answers(), process.service().endpoint(), health.detail());
    }

    /** The log file a service writes its stdout and stderr to. */
    public Path logFile(ServiceKind kind) {
        return processes.get(kind).logFile();
    }
}
