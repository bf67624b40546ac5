// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import io.flowhouse.services.clickhouse.ClickHouseInstaller;
import io.flowhouse.services.clickhouse.ClickHouseServer;
import io.flowhouse.services.flink.FlinkJobManager;
import io.flowhouse.services.flink.FlinkTaskManager;
import io.flowhouse.services.kafka.KafkaProcess;
import io.flowhouse.services.zookeeper.ZooKeeperServer;
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

    /**
     * Every kind's processes: one each, except {@code kafka-brokers} brokers, {@code
     * flink-taskmanagers} TaskManagers, and {@code clickhouse-shards} x {@code clickhouse-replicas}
     * ClickHouse servers (with ZooKeeper last among them when there are 2 or more).
     */
    private final Map<ServiceKind, List<ServiceProcess>> processes =
            new EnumMap<>(ServiceKind.class);

    public ServicesManager(ServicesConfig config) {
        this.config = config;
        for (int i = 0; i < config.clickhouseServers(); i++) {
            add(ServiceKind.CLICKHOUSE, ClickHouseServer.forServices(config, i));
        }
        if (config.clickhouseServers() > 1) {
            // Last of its kind: index 0 stays the first replica; replicas wait for it on start.
            add(
                    ServiceKind.CLICKHOUSE,
                    ZooKeeperServer.debian(
                            "zookeeper",
                            config.stateDir().resolve("zookeeper"),
                            config.zookeeperPort()));
        }
        for (int i = 0; i < config.kafkaBrokers(); i++) {
            add(ServiceKind.KAFKA, new KafkaProcess(config, i));
        }
        add(ServiceKind.FLINK_JOBMANAGER, new FlinkJobManager(config));
        for (int i = 0; i < config.flinkTaskManagers(); i++) {
            add(ServiceKind.FLINK_TASKMANAGER, new FlinkTaskManager(config, i));
        }
    }

    private void add(ServiceKind kind, LocalService service) {
        processes
                .computeIfAbsent(kind, k -> new ArrayList<>())
                .add(
                        new ServiceProcess(
                                service,
                                config.pidDir(),
                                config.logDir(),
                                config.startTimeout(),
                                config.stopTimeout()));
    }

    private ServiceProcess process(ServiceKind kind, int index) {
        List<ServiceProcess> all = processes.get(kind);
        if (index < 0 || index >= all.size()) {
            throw new IllegalArgumentException(
                    kind.serviceName() + " " + (index + 1) + " of " + all.size());
        }
        return all.get(index);
    }

    /** How many processes of this kind the topology has. */
    public int instances(ServiceKind kind) {
        return processes.get(kind).size();
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
     * Starts every process of one service that does not run yet, and waits until each answers. A
     * service that does not come up is stopped again and the error carries the end of its log.
     *
     * @return the status of its first process
     */
    public ServiceStatus start(ServiceKind kind) {
        if (instances(kind) == 1) {
            return start(kind, 0);
        }
        // All first, then the waits: a KRaft quorum answers once a majority of its nodes runs.
        List<ServiceProcess.Launched> launched = new ArrayList<>();
        for (ServiceProcess process : processes.get(kind)) {
            launched.add(process.launch());
        }
        for (int i = 0; i < launched.size(); i++) {
            ServiceProcess process = process(kind, i);
            process.awaitStarted(launched.get(i));
            if (!launched.get(i).adopted()) {
                LOG.info(
                        "started {} as pid {}", process.service().name(), process.pid().orElse(-1));
            }
        }
        return status(kind);
    }

    /** Starts process {@code index} (from 0) of a service unless it runs, as {@link #start}. */
    public ServiceStatus start(ServiceKind kind, int index) {
        ServiceProcess process = process(kind, index);
        boolean wasRunning = process.isRunning();
        process.start();
        if (!wasRunning) {
            LOG.info("started {} as pid {}", process.service().name(), process.pid().orElse(-1));
        }
        return status(kind, index);
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

    /**
     * SIGTERM, then SIGKILL after the stop timeout, for every process of the service (the last
     * first); true when a process was stopped.
     */
    public boolean stop(ServiceKind kind) {
        boolean stopped = false;
        for (int i = instances(kind) - 1; i >= 0; i--) {
            ServiceProcess process = process(kind, i);
            if (process.stop()) {
                LOG.info("stopped {}", process.service().name());
                stopped = true;
            }
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

    /** {@code kill -9} of a service's first process, for fault tests: no clean shutdown. */
    public boolean kill(ServiceKind kind) {
        return kill(kind, 0);
    }

    /** {@code kill -9} of process {@code index} (from 0) of a service. */
    public boolean kill(ServiceKind kind, int index) {
        return process(kind, index).kill();
    }

    /** The pid of a running service's first process. */
    public OptionalLong pid(ServiceKind kind) {
        return pid(kind, 0);
    }

    public OptionalLong pid(ServiceKind kind, int index) {
        return process(kind, index).pid();
    }

    /** Probes every process of every service. */
    public List<ServiceStatus> status() {
        List<ServiceStatus> all = new ArrayList<>();
        for (ServiceKind kind : ServiceKind.values()) {
            for (int i = 0; i < instances(kind); i++) {
                all.add(status(kind, i));
            }
        }
        return all;
    }

    /** The status of a service's first process. */
    public ServiceStatus status(ServiceKind kind) {
        return status(kind, 0);
    }

    public ServiceStatus status(ServiceKind kind, int index) {
        ServiceProcess process = process(kind, index);
        OptionalLong pid = process.pid();
        LocalService.Health health = process.health();
        return new ServiceStatus(
                kind,
                process.service().name(),
                pid,
                health.answers(),
                process.service().endpoint(),
                health.detail());
    }

    /** The topology in one line: what {@code status} shows above the services. */
    public String topology() {
        return String.format(
                java.util.Locale.ROOT,
                "%d Kafka broker(s), %d partition(s) per topic; %d TaskManager(s) x %d slot(s);"
                        + " %d ClickHouse server(s)%s",
                instances(ServiceKind.KAFKA),
                config.kafkaPartitions(),
                instances(ServiceKind.FLINK_TASKMANAGER),
                config.flinkSlots(),
                config.clickhouseServers(),
                config.clickhouseServers() > 1
                        ? String.format(
                                java.util.Locale.ROOT,
                                " (%s of cluster %s, ZooKeeper 127.0.0.1:%d)",
                                config.clickhouseShards() == 1
                                        ? "replicas"
                                        : config.clickhouseShards()
                                                + " shards x "
                                                + config.clickhouseReplicas()
                                                + " replica(s)",
                                ServicesConfig.CLICKHOUSE_CLUSTER,
                                config.zookeeperPort())
                        : "");
    }

    /** The log file a service's first process writes its stdout and stderr to. */
    public Path logFile(ServiceKind kind) {
        return process(kind, 0).logFile();
    }
}
