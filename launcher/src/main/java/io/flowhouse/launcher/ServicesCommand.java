// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServiceStatus;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.services.clickhouse.ClickHouseInstaller;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code ./flowhouse services up|down|status [SERVICE...]}. */
@Command(
        name = "services",
        mixinStandardHelpOptions = true,
        description = {
            "start, stop or show the local Kafka, ClickHouse and Flink (up|down|status)",
            "",
            "Runs REAL local services as background processes in a project-local state",
            "directory (./.flowhouse: configs, data, pid files, logs/):",
            "  clickhouse         Debian's clickhouse-server (installed with apt when missing"
                    + " and root)",
            "  kafka              Kafka KRaft broker+controller in its own JVM"
                    + " (dist/kafka/target/lib);",
            "                     --kafka-brokers N: a quorum of N (kafka, kafka-2, ...),"
                    + " replication",
            "                     factor min(3, N), min.insync.replicas 2 from 3",
            "  flink-jobmanager   Flink standalone session cluster JobManager"
                    + " (dist/flink/target/lib)",
            "  flink-taskmanager  its TaskManagers (--taskmanagers N processes, --flink-slots",
            "                     slots each: flink-taskmanager, flink-taskmanager-2, ...)",
            "",
            "  up       start what does not run yet (all, or the SERVICEs named) and return once",
            "           each one answers: Kafka describeCluster, ClickHouse SELECT 1, Flink REST",
            "           /overview with the TaskManager registered",
            "  status   the topology, what runs where, and whether it answers (exit 3 if",
            "           something is down)",
            "  down     stop what 'up' started, by the pids in the pid files: SIGTERM, then",
            "           SIGKILL after 30 s; leaves nothing running",
            "",
            "Flags beat environment variables, which beat the defaults; status, down and query",
            "use the ports recorded by the last 'up'."
        })
public final class ServicesCommand implements Callable<Integer> {

    private final LaunchContext ctx;

    @Mixin ServicesOptions services = new ServicesOptions();

    @Parameters(index = "0", paramLabel = "ACTION", description = "up, down or status")
    String action;

    @Parameters(
            index = "1..*",
            paramLabel = "SERVICE",
            description = "clickhouse, kafka, flink-jobmanager, flink-taskmanager (default: all)")
    List<String> names = new ArrayList<>();

    ServicesCommand(LaunchContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
        List<ServiceKind> kinds = new ArrayList<>();
        for (String name : names) {
            try {
                kinds.add(ServiceKind.parse(name));
            } catch (IllegalArgumentException e) {
                throw new UsageError(e.getMessage());
            }
        }
        if (kinds.isEmpty()) {
            kinds.addAll(List.of(ServiceKind.values()));
        }
        PrintStream out = ctx.out();
        switch (action) {
            case "up":
                return up(new ServicesManager(services.config(ctx, false)), kinds, out, ctx.err());
            case "down":
                return down(new ServicesManager(services.config(ctx, true)), kinds, out);
            case "status":
                return status(new ServicesManager(services.config(ctx, true)), out);
            default:
                throw new UsageError(
                        "unknown action '" + action + "' (expected: up, down or status)");
        }
    }

    private static int up(
            ServicesManager manager, List<ServiceKind> kinds, PrintStream out, PrintStream err)
            throws InterruptedException {
        ServicesConfig config = manager.config();
        if (kinds.contains(ServiceKind.CLICKHOUSE)
                && !ClickHouseInstaller.ensureInstalled(config.clickhouseBinary(), err)) {
            return ExitCode.FAILURE;
        }
        for (ServiceKind kind : ServiceKind.values()) {
            if (!kinds.contains(kind)) {
                continue;
            }
            out.printf(Locale.ROOT, "starting %-18s ", kind.serviceName());
            out.flush();
            long started = System.nanoTime();
            try {
                manager.startAll(List.of(kind));
            } catch (RuntimeException e) {
                out.println("FAILED");
                err.println("flowhouse services up: " + e.getMessage());
                err.println(
                        "(services already started keep running; ./flowhouse services down stops them)");
                return ExitCode.FAILURE;
            }
            out.printf(Locale.ROOT, "answers after %.1f s%n", (System.nanoTime() - started) / 1e9);
        }
        out.println();
        return status(manager, out) == ExitCode.OK ? ExitCode.OK : ExitCode.FAILURE;
    }

    private static int down(ServicesManager manager, List<ServiceKind> kinds, PrintStream out) {
        List<ServiceKind> stopped = new ArrayList<>();
        ServiceKind[] all = ServiceKind.values();
        for (int i = all.length - 1; i >= 0; i--) {
            if (kinds.contains(all[i]) && manager.stop(all[i])) {
                stopped.add(all[i]);
                out.println("stopped " + all[i].serviceName());
            }
        }
        if (stopped.isEmpty()) {
            out.println(
                    "nothing to stop (no running service in " + manager.config().pidDir() + ")");
        }
        return 0;
    }

    static int status(ServicesManager manager, PrintStream out) {
        List<ServiceStatus> all = manager.status();
        out.println("topology: " + manager.topology());
        out.printf(Locale.ROOT, "%-20s %-8s %-8s %s%n", "SERVICE", "PID", "STATE", "WHERE");
        boolean allAnswer = true;
        for (ServiceStatus status : all) {
            out.printf(
                    Locale.ROOT,
                    "%-20s %-8s %-8s %s%n",
                    status.name(),
                    status.pid().isPresent() ? Long.toString(status.pid().getAsLong()) : "-",
                    status.state(),
                    status.endpoint());
            out.printf(Locale.ROOT, "%-20s %-8s %-8s   %s%n", "", "", "", status.detail());
            allAnswer &= status.running() && status.answers();
        }
        ServicesConfig config = manager.config();
        out.println("state: " + config.stateDir() + "   logs: " + config.logDir());
        return allAnswer ? ExitCode.OK : ExitCode.CHECK_FAILED;
    }
}
