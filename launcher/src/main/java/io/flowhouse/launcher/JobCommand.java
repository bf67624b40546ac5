// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.ServicesConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * {@code ./flowhouse job submit|list|status|cancel}: Flink jobs on a session cluster over its REST
 * API, by default the local one that {@code ./flowhouse services up} started.
 */
public final class JobCommand implements Command {

    /** The pipeline job, used when neither --class nor the jar's manifest names one. */
    public static final String DEFAULT_ENTRY_CLASS = "io.flowhouse.jobs.FlowPipelineJob";

    private final FlowhouseHome home;
    private final Map<String, String> env;

    public JobCommand(FlowhouseHome home, Map<String, String> env) {
        this.home = home;
        this.env = env;
    }

    @Override
    public String name() {
        return "job";
    }

    @Override
    public String summary() {
        return "submit, list, watch or cancel Flink jobs on a session cluster (REST API)";
    }

    static String help() {
        return """
                Usage:
                  ./flowhouse job submit [--rest URL] [--jar JAR] [--class CLASS] [--parallelism N]
                                         [--from-savepoint PATH [--allow-non-restored]]
                                         [--no-wait] [-- JOB ARGS...]
                  ./flowhouse job list   [--rest URL]
                  ./flowhouse job status JOB_ID [--rest URL]
                  ./flowhouse job cancel JOB_ID [--savepoint DIR] [--rest URL]
                  ./flowhouse job reprocess --from T1 --to T2 [--topic flows.raw|packets.raw|all]
                                         [--target-database DB] [--resolutions 1m,1h] [--local]

                  submit   uploads the jar (POST /jars/upload) and runs it (POST /jars/:id/run);
                           waits until the job runs (or ends) unless --no-wait, prints the job id.
                           --jar defaults to flink-jobs/target/flink-jobs-*-job.jar, --class to the
                           jar's Main-Class, else io.flowhouse.jobs.FlowPipelineJob.
                  list     jobs on the cluster: id, state, name, start time
                  status   one job's state; for a failed job, its root exception
                  cancel   cancels; with --savepoint DIR stops with a savepoint there first and
                           prints its path (resume with submit --from-savepoint PATH)
                  reprocess  the same topology in Flink BATCH mode over the Kafka records of
                           [T1, T2); re-running replaces rather than duplicates (details:
                           ./flowhouse job reprocess --help)

                  --rest URL   the JobManager's REST address (FLOWHOUSE_FLINK_REST, default
                               http://localhost:<flink-rest-port of the last services up>)
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        if (!args.isEmpty() && args.get(0).equals("reprocess")) {
            return new ReprocessCommand(home, env).run(args.subList(1, args.size()), out, err);
        }
        Set<String> valueOptions = new java.util.HashSet<>(ServicesConfig.OPTIONS);
        valueOptions.addAll(
                Set.of(
                        "rest",
                        "jar",
                        "class",
                        "parallelism",
                        "from-savepoint",
                        "savepoint",
                        "timeout"));
        CommandLine cl =
                CommandLine.parse(args, Set.of("no-wait", "allow-non-restored"), valueOptions);
        if (cl.helpRequested() || cl.positional().isEmpty()) {
            out.print(help());
            return cl.helpRequested() ? 0 : EXIT_USAGE;
        }
        FlinkRestClient rest = new FlinkRestClient(restUrl(cl));
        String action = cl.positional().get(0);
        try {
            switch (action) {
                case "submit":
                    return submit(rest, cl, out, err);
                case "list":
                    return list(rest, out);
                case "status":
                    return status(rest, jobId(cl), out);
                case "cancel":
                    return cancel(rest, jobId(cl), cl, out);
                default:
                    err.println("flowhouse job: unknown action '" + action + "'");
                    err.print(help());
                    return EXIT_USAGE;
            }
        } catch (java.net.ConnectException e) {
            err.println(
                    "flowhouse job: no Flink REST API at "
                            + rest.baseUrl()
                            + " (start one with ./flowhouse services up, or pass --rest)");
            return 1;
        } catch (IOException e) {
            err.println("flowhouse job " + action + ": " + e.getMessage());
            return 1;
        }
    }

    private String restUrl(CommandLine cl) {
        Optional<String> explicit = cl.value("rest");
        if (explicit.isPresent()) {
            return explicit.get();
        }
        String fromEnv = env.get("FLOWHOUSE_FLINK_REST");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        return cl.servicesConfig(home, env, true).flinkRestUrl();
    }

    private static String jobId(CommandLine cl) {
        if (cl.positional().size() < 2) {
            throw new CommandLine.UsageException("a JOB_ID is needed (see ./flowhouse job list)");
        }
        return cl.positional().get(1);
    }

    private int submit(FlinkRestClient rest, CommandLine cl, PrintStream out, PrintStream err)
            throws IOException, InterruptedException {
        Path jar = cl.value("jar").map(Path::of).orElseGet(() -> defaultJar(home.root()));
        if (!Files.isRegularFile(jar)) {
            err.println(
                    "flowhouse job submit: no job jar at "
                            + jar
                            + " (build it with mvn -B -ntp install -DskipTests -pl flink-jobs -am,"
                            + " or pass --jar)");
            return EXIT_NOT_BUILT;
        }
        Optional<String> entryClass = cl.value("class");
        if (entryClass.isEmpty() && mainClass(jar).isEmpty()) {
            entryClass = Optional.of(DEFAULT_ENTRY_CLASS);
        }
        Optional<Integer> parallelism =
                cl.value("parallelism")
                        .map(p -> CommandLine.parseInt("--parallelism", p, 1, 10_000));
        String jarId = rest.uploadJar(jar);
        String jobId =
                rest.runJar(
                        jarId,
                        new FlinkRestClient.RunRequest(
                                entryClass,
                                cl.passThrough(),
                                parallelism,
                                cl.value("from-savepoint"),
                                cl.flag("allow-non-restored")));
        out.println(
                "submitted " + jar.getFileName() + " as job " + jobId + " to " + rest.baseUrl());
        if (cl.flag("no-wait")) {
            return 0;
        }
        Duration timeout = Duration.ofSeconds(cl.intValue("timeout", 120, 1, 3600));
        String state = rest.awaitState(jobId, timeout, "RUNNING", "FINISHED");
        out.println("job " + jobId + " is " + state);
        if ("FAILED".equals(state)) {
            rest.rootException(jobId).ifPresent(e -> err.println(firstLines(e, 20)));
            return 1;
        }
        return FlinkRestClient.isTerminal(state) && !"FINISHED".equals(state) ? 1 : 0;
    }

    private static int list(FlinkRestClient rest, PrintStream out)
            throws IOException, InterruptedException {
        List<FlinkRestClient.JobSummary> jobs = rest.listJobs();
        if (jobs.isEmpty()) {
            out.println("no jobs on " + rest.baseUrl());
            return 0;
        }
        out.printf(Locale.ROOT, "%-32s  %-10s  %-20s  %s%n", "JOB ID", "STATE", "STARTED", "NAME");
        for (FlinkRestClient.JobSummary job : jobs) {
            out.printf(
                    Locale.ROOT,
                    "%-32s  %-10s  %-20s  %s%n",
                    job.id(),
                    job.state(),
                    job.startTime() > 0
                            ? Instant.ofEpochMilli(job.startTime()).toString().substring(0, 19)
                            : "-",
                    job.name());
        }
        return 0;
    }

    private static int status(FlinkRestClient rest, String jobId, PrintStream out)
            throws IOException, InterruptedException {
        String state = rest.jobState(jobId);
        out.println(jobId + " " + state);
        if ("FAILED".equals(state)) {
            rest.rootException(jobId).ifPresent(e -> out.println(firstLines(e, 20)));
        }
        return 0;
    }

    private static int cancel(FlinkRestClient rest, String jobId, CommandLine cl, PrintStream out)
            throws IOException, InterruptedException {
        Optional<String> savepointDir = cl.value("savepoint");
        if (savepointDir.isPresent()) {
            String target = savepointDir.get();
            if (!target.contains("://")) {
                target = Path.of(target).toAbsolutePath().toUri().toString();
            }
            String location = rest.stopWithSavepoint(jobId, target, Duration.ofMinutes(5));
            out.println("stopped " + jobId + " with savepoint " + location);
            return 0;
        }
        rest.cancel(jobId);
        String state = rest.awaitState(jobId, Duration.ofSeconds(60), "CANCELED");
        out.println("job " + jobId + " is " + state);
        return "CANCELED".equals(state) ? 0 : 1;
    }

    /** The newest {@code flink-jobs/target/flink-jobs-*-job.jar}, or that pattern's path. */
    static Path defaultJar(Path root) {
        Path target = root.resolve("flink-jobs/target");
        List<Path> jars = new ArrayList<>();
        if (Files.isDirectory(target)) {
            try (DirectoryStream<Path> stream =
                    Files.newDirectoryStream(target, "flink-jobs-*-job.jar")) {
                stream.forEach(jars::add);
            } catch (IOException e) {
                // fall through to the pattern
            }
        }
        jars.sort((a, b) -> Long.compare(b.toFile().lastModified(), a.toFile().lastModified()));
        return jars.isEmpty() ? target.resolve("flink-jobs-*-job.jar") : jars.get(0);
    }

    private static Optional<String> mainClass(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            if (manifest == null) {
                return Optional.empty();
            }
            return Optional.ofNullable(manifest.getMainAttributes().getValue("Main-Class"));
        }
    }

    private static String firstLines(String text, int lines) {
        String[] all = text.split("\n");
        return String.join(
                "\n", java.util.Arrays.asList(all).subList(0, Math.min(lines, all.length)));
    }
}
