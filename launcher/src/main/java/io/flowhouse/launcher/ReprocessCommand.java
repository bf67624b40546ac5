// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.jobs.reprocess.ReprocessJob;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.ServicesConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code ./flowhouse job reprocess}: re-runs the pipeline's topology in Flink BATCH mode over a
 * bounded range of the archived topics ({@link ReprocessJob}), on the standalone cluster that
 * {@code ./flowhouse services up} started (the job jar is submitted with the arguments) or, with
 * {@code --local}, on an in-process MiniCluster.
 */
public final class ReprocessCommand {

    /** The batch job's entry class in the job jar. */
    public static final String ENTRY_CLASS = "io.flowhouse.jobs.reprocess.ReprocessJob";

    private static final Set<String> JOB_OPTIONS =
            Set.of("from", "to", "topic", "target-database", "resolutions");

    private final FlowhouseHome home;
    private final Map<String, String> env;

    public ReprocessCommand(FlowhouseHome home, Map<String, String> env) {
        this.home = home;
        this.env = env;
    }

    static String help() {
        return """
                Usage:
                  ./flowhouse job reprocess --from T1 --to T2 [--topic flows.raw|packets.raw|all]
                                            [--target-database DB] [--resolutions 1m,1h]
                                            [--local] [--rest URL] [--jar JAR] [--timeout SECONDS]
                                            [-- JOB OPTIONS...]

                  Runs decode, packet flow ageing and rollups in Flink BATCH mode over the Kafka
                  records with timestamps in [T1, T2) and writes ClickHouse. Rows replace what a
                  previous run (or the streaming job) wrote for the same flows and buckets: run it
                  again and nothing changes. --target-database writes a separate database;
                  --resolutions builds rollups at other window sizes (tables flows_<size>).

                  T            ISO-8601 instant (2024-01-15T12:00:00Z), epoch ms, earliest or latest
                  --topic      which archive (default all: flows.raw and packets.raw)
                  --local      run on an in-process MiniCluster instead of the cluster
                  --rest URL   the JobManager's REST address (default: the local services)
                  --timeout    seconds to wait for the cluster job to finish (default 3600)
                """;
    }

    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Set<String> valueOptions = new HashSet<>(ServicesConfig.OPTIONS);
        valueOptions.addAll(JOB_OPTIONS);
        valueOptions.addAll(Set.of("rest", "jar", "timeout"));
        CommandLine cl = CommandLine.parse(args, Set.of("local"), valueOptions);
        if (cl.helpRequested()) {
            out.print(help());
            return 0;
        }
        if (cl.value("from").isEmpty() || cl.value("to").isEmpty()) {
            err.println("flowhouse job reprocess: --from and --to are required");
            err.print(help());
            return Command.EXIT_USAGE;
        }
        ServicesConfig config = cl.servicesConfig(home, env, true);
        List<String> jobArgs = new ArrayList<>();
        for (String o : List.of("from", "to", "topic", "target-database", "resolutions")) {
            Optional<String> v = cl.value(o);
            if (v.isPresent()) {
                jobArgs.add("--" + o);
                jobArgs.add(v.get());
            }
        }
        jobArgs.addAll(List.of("--kafka.bootstrap-servers", config.kafkaBootstrap()));
        jobArgs.addAll(List.of("--clickhouse.url", config.clickhouseUrl()));
        jobArgs.addAll(cl.passThrough());
        if (cl.flag("local")) {
            out.println("reprocessing on an in-process MiniCluster: " + String.join(" ", jobArgs));
            ReprocessJob.main(jobArgs.toArray(String[]::new));
            out.println("reprocessing finished");
            return 0;
        }
        Path jar =
                cl.value("jar").map(Path::of).orElseGet(() -> JobCommand.defaultJar(home.root()));
        if (!Files.isRegularFile(jar)) {
            err.println(
                    "flowhouse job reprocess: no job jar at "
                            + jar
                            + " (build it with mvn -B -ntp install -DskipTests -pl flink-jobs -am,"
                            + " pass --jar, or use --local)");
            return Command.EXIT_NOT_BUILT;
        }
        FlinkRestClient rest = new FlinkRestClient(cl.value("rest").orElse(config.flinkRestUrl()));
        try {
            String jarId = rest.uploadJar(jar);
            String id =
                    rest.runJar(
                            jarId,
                            new FlinkRestClient.RunRequest(
                                    Optional.of(ENTRY_CLASS),
                                    jobArgs,
                                    Optional.empty(),
                                    Optional.empty(),
                                    false));
            out.println("reprocessing job " + id + " submitted to " + rest.baseUrl());
            Duration timeout = Duration.ofSeconds(cl.intValue("timeout", 3600, 1, 86_400));
            String state = rest.awaitState(id, timeout, "FINISHED");
            out.println("job " + id + " is " + state);
            if (!"FINISHED".equals(state)) {
                rest.rootException(id).ifPresent(err::println);
                return 1;
            }
            return 0;
        } catch (java.net.ConnectException e) {
            err.println(
                    "flowhouse job reprocess: no Flink REST API at "
                            + rest.baseUrl()
                            + " (./flowhouse services up, --rest URL, or --local)");
            return 1;
        } catch (IOException e) {
            err.println("flowhouse job reprocess: " + e.getMessage());
            return 1;
        }
    }
}
