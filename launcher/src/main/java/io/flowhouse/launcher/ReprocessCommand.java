// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.jobs.reprocess.ReprocessJob;
import io.flowhouse.services.ServicesConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./flowhouse job reprocess}: re-runs the pipeline's topology in Flink BATCH mode over a
 * bounded range of the archived topics ({@link ReprocessJob}), on the standalone cluster that
 * {@code ./flowhouse services up} started (the job jar is submitted with the arguments) or, with
 * {@code --local}, on an in-process MiniCluster.
 */
@Command(
        name = "reprocess",
        mixinStandardHelpOptions = true,
        customSynopsis = {
            "./flowhouse job reprocess --from T1 --to T2 [--topic flows.raw|packets.raw|all]",
            "                                 [--target-database DB] [--resolutions 1m,1h]",
            "                                 [--local] [--rest URL] [--jar JAR]"
                    + " [--timeout SECONDS]",
            "                                 [-- JOB_ARGS...]"
        },
        description = {
            "re-run decode, ageing and rollups in BATCH mode over a time range of the archive",
            "",
            "Runs decode, packet flow ageing and rollups in Flink BATCH mode over the Kafka",
            "records with timestamps in [T1, T2) and writes ClickHouse. Rows replace what a",
            "previous run (or the streaming job) wrote for the same flows and buckets: run it",
            "again and nothing changes. --target-database writes a separate database;",
            "--resolutions builds rollups at other window sizes (tables flows_<size>).",
            "",
            "T is an ISO-8601 instant (2024-01-15T12:00:00Z), epoch ms, earliest or latest.",
            ""
        })
public final class ReprocessCommand implements Callable<Integer> {

    /** The batch job's entry class in the job jar. */
    public static final String ENTRY_CLASS = ReprocessJob.class.getName();

    private final LaunchContext ctx;

    @Mixin JobCommand.RestOptions restOptions = new JobCommand.RestOptions();

    @Option(names = "--from", paramLabel = "T1", description = "start of the range (inclusive)")
    String from;

    @Option(names = "--to", paramLabel = "T2", description = "end of the range (exclusive)")
    String to;

    @Option(
            names = "--topic",
            paramLabel = "TOPIC",
            description = "which archive: flows.raw, packets.raw or all (default all)")
    String topic;

    @Option(
            names = "--target-database",
            paramLabel = "DB",
            description = "write this database instead")
    String targetDatabase;

    @Option(
            names = "--resolutions",
            paramLabel = "LIST",
            description = "rollup window sizes, e.g. 1m,1h")
    String resolutions;

    @Option(names = "--local", description = "run on an in-process MiniCluster")
    boolean local;

    @Option(names = "--jar", paramLabel = "JAR", description = "the job jar")
    Path jar;

    @Option(
            names = "--timeout",
            paramLabel = "SECONDS",
            description = "wait for the cluster job to finish (default 3600)")
    int timeout = 3600;

    @Parameters(
            paramLabel = "JOB_ARGS",
            description = "after --: the job's flags: --config FILE, --set KEY=VALUE, --KEY VALUE")
    List<String> jobArgsAfter = new ArrayList<>();

    ReprocessCommand(LaunchContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = ctx.out();
        PrintStream err = ctx.err();
        if (from == null || to == null) {
            throw new UsageError("--from and --to are required");
        }
        Ranges.check("--timeout", timeout, 1, 86_400);
        ServicesConfig config = restOptions.services.config(ctx, true);
        List<String> jobArgs = new ArrayList<>();
        add(jobArgs, "from", from);
        add(jobArgs, "to", to);
        add(jobArgs, "topic", topic);
        add(jobArgs, "target-database", targetDatabase);
        add(jobArgs, "resolutions", resolutions);
        jobArgs.addAll(List.of("--kafka.bootstrap-servers", config.kafkaBootstrap()));
        // Every replica, tried in order; with replicas the schema is created ON CLUSTER.
        jobArgs.addAll(List.of("--clickhouse.url", config.clickhouseUrls()));
        if (!config.clickhouseCluster().isEmpty()) {
            jobArgs.addAll(List.of("--clickhouse.cluster", config.clickhouseCluster()));
        }
        // The path of the generated password, never the password itself.
        jobArgs.addAll(
                List.of("--clickhouse.password-file", config.clickhousePasswordFile().toString()));
        jobArgs.addAll(jobArgsAfter);
        if (local) {
            out.println("reprocessing on an in-process MiniCluster: " + String.join(" ", jobArgs));
            ReprocessJob.main(jobArgs.toArray(String[]::new));
            out.println("reprocessing finished");
            return ExitCode.OK;
        }
        Path jarPath = jar != null ? jar : JobCommand.defaultJar(ctx.home().root());
        if (!Files.isRegularFile(jarPath)) {
            err.println(
                    "flowhouse job reprocess: no job jar at "
                            + jarPath
                            + " (build it with mvn -B -ntp install -DskipTests -pl flink-jobs -am,"
                            + " pass --jar, or use --local)");
            return ExitCode.NOT_BUILT;
        }
        FlinkRestClient rest =
                restOptions.rest != null
                        ? new FlinkRestClient(restOptions.rest)
                        : new FlinkRestClient(config.flinkRestUrl());
        try {
            String jarId = rest.uploadJar(jarPath);
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
            String state = rest.awaitState(id, Duration.ofSeconds(timeout), "FINISHED");
            out.println("job " + id + " is " + state);
            if (!"FINISHED".equals(state)) {
                rest.rootException(id).ifPresent(err::println);
                return ExitCode.FAILURE;
            }
            return ExitCode.OK;
        } catch (java.net.ConnectException e) {
            err.println(
                    "flowhouse job reprocess: no Flink REST API at "
                            + rest.baseUrl()
                            + " (./flowhouse services up, --rest URL, or --local)");
            return ExitCode.FAILURE;
        } catch (IOException e) {
            err.println("flowhouse job reprocess: " + e.getMessage());
            return ExitCode.FAILURE;
        }
    }

    private static void add(List<String> args, String key, String value) {
        if (value != null) {
            args.add("--" + key);
            args.add(value);
        }
    }
}
