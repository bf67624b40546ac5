// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServiceStatus;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.services.clickhouse.ClickHouseInstaller;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** {@code ./flowhouse services up|down|status [SERVICE...]}. */
public final class ServicesCommand implements Command {

    private final FlowhouseHome home;
    private final Map<String, String> env;

    public ServicesCommand(FlowhouseHome home, Map<String, String> env) {
        this.home = home;
        this.env = env;
    }

    @Override
    public String name() {
        return "services";
    }

    @Override
    public String summary() {
        return "start, stop or show the local Kafka, ClickHouse and Flink (up|down|status)";
    }

    static String help() {
        return """
                Usage: ./flowhouse services up|down|status [SERVICE...] [OPTIONS]

                Runs REAL local services as background processes in a project-local state
                directory (./.flowhouse: configs, data, pid files, logs/):
                  clickhouse         Debian's clickhouse-server (installed with apt when missing and root)
                  kafka              Kafka KRaft broker+controller in its own JVM (dist/kafka/target/lib)
                  flink-jobmanager   Flink standalone session cluster JobManager (dist/flink/target/lib)
                  flink-taskmanager  one TaskManager registered with it

                  up       start what does not run yet (all, or the SERVICEs named) and return once
                           each one answers: Kafka describeCluster, ClickHouse SELECT 1, Flink REST
                           /overview with the TaskManager registered
                  status   what runs where, and whether it answers (exit 3 if something is down)
                  down     stop what 'up' started, by the pids in the pid files: SIGTERM, then
                           SIGKILL after 30 s; leaves nothing running

                Options (flags beat environment variables, which beat the defaults; status, down
                and query use the ports recorded by the last 'up'):
                """
                + ServicesConfig.OPTIONS_HELP;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        CommandLine cl = CommandLine.parse(args, Set.of(), ServicesConfig.OPTIONS);
        if (cl.helpRequested() || cl.positional().isEmpty()) {
            out.print(help());
            return cl.helpRequested() ? 0 : EXIT_USAGE;
        }
        String action = cl.positional().get(0);
        List<ServiceKind> kinds = new ArrayList<>();
        for (String name : cl.positional().subList(1, cl.positional().size())) {
            kinds.add(ServiceKind.parse(name));
        }
        if (kinds.isEmpty()) {
            kinds.addAll(List.of(ServiceKind.values()));
        }
        boolean up = action.equals("up");
        ServicesConfig config = cl.servicesConfig(home, env, !up);
        ServicesManager manager = new ServicesManager(config);
        switch (action) {
            case "up":
                return up(manager, kinds, out, err);
            case "down":
                return down(manager, kinds, out);
            case "status":
                return status(manager, out);
            default:
                err.println("flowhouse services: unknown action '" + action + "'");
                err.print(help());
                return EXIT_USAGE;
        }
    }

    private static int up(
            ServicesManager manager, List<ServiceKind> kinds, PrintStream out, PrintStream err)
            throws InterruptedException {
        ServicesConfig config = manager.config();
        if (kinds.contains(ServiceKind.CLICKHOUSE)
                && !ClickHouseInstaller.ensureInstalled(config.clickhouseBinary(), err)) {
            return 1;
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
                return 1;
            }
            out.printf(Locale.ROOT, "answers after %.1f s%n", (System.nanoTime() - started) / 1e9);
        }
        out.println();
        return status(manager, out) == 0 ? 0 : 1;
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
        out.printf(Locale.ROOT, "%-18s %-8s %-8s %s%n", "SERVICE", "PID", "STATE", "WHERE");
        boolean allAnswer = true;
        for (ServiceStatus status : all) {
            out.printf(
                    Locale.ROOT,
                    "%-18s %-8s %-8s %s%n",
                    status.kind().serviceName(),
                    status.pid().isPresent() ? Long.toString(status.pid().getAsLong()) : "-",
                    status.state(),
                    status.endpoint());
            out.printf(Locale.ROOT, "%-18s %-8s %-8s   %s%n", "", "", "", status.detail());
            allAnswer &= status.running() && status.answers();
        }
        ServicesConfig config = manager.config();
        out.println("state: " + config.stateDir() + "   logs: " + config.logDir());
        return allAnswer ? 0 : 3;
    }
}
