// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.jobs.FlowPipelineJob;
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
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ./flowhouse job submit|list|status|cancel|reprocess}: Flink jobs on a session cluster over
 * its REST API, by default the local one that {@code ./flowhouse services up} started.
 */
@Command(
        name = "job",
        mixinStandardHelpOptions = true,
        description = "submit, list, watch or cancel Flink jobs on a session cluster (REST API)")
public final class JobCommand implements Callable<Integer> {

    /** The pipeline job, used when neither --class nor the jar's manifest names one. */
    public static final String DEFAULT_ENTRY_CLASS = FlowPipelineJob.class.getName();

    @Spec CommandSpec spec;

    private final LaunchContext ctx;

    JobCommand(LaunchContext ctx) {
        this.ctx = ctx;
    }

    /** The sub-commands, bound to the same context. */
    List<Object> subcommands() {
        return List.of(
                new Submit(ctx),
                new JobList(ctx),
                new Status(ctx),
                new Cancel(ctx),
                new ReprocessCommand(ctx));
    }

    /** {@code ./flowhouse job} alone: its usage, as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(ctx.err());
        return ExitCode.USAGE;
    }

    /** Where the cluster's REST API is: the flag, the environment, or the local services. */
    static final class RestOptions {
        @Mixin ServicesOptions services = new ServicesOptions();

        @Option(
                names = "--rest",
                paramLabel = "URL",
                description = {
                    "the JobManager's REST address (FLOWHOUSE_FLINK_REST, default",
                    "http://localhost:<flink-rest-port of the last services up>)"
                })
        String rest;

        FlinkRestClient client(LaunchContext ctx) {
            if (rest != null) {
                return new FlinkRestClient(rest);
            }
            String fromEnv = ctx.env().get("FLOWHOUSE_FLINK_REST");
            if (fromEnv != null && !fromEnv.isBlank()) {
                return new FlinkRestClient(fromEnv);
            }
            return new FlinkRestClient(services.config(ctx, true).flinkRestUrl());
        }
    }

    /** A job action against the cluster: connection errors are reported plainly. */
    abstract static class Action implements Callable<Integer> {
        final LaunchContext ctx;

        @Mixin RestOptions restOptions = new RestOptions();

        Action(LaunchContext ctx) {
            this.ctx = ctx;
        }

        abstract String name();

        abstract int run(FlinkRestClient rest) throws IOException, InterruptedException;

        @Override
        public Integer call() throws Exception {
            FlinkRestClient rest = restOptions.client(ctx);
            try {
                return run(rest);
            } catch (java.net.ConnectException e) {
                ctx.err()
                        .println(
                                "flowhouse job: no Flink REST API at "
                                        + rest.baseUrl()
                                        + " (start one with ./flowhouse services up, or pass"
                                        + " --rest)");
                return ExitCode.FAILURE;
            } catch (IOException e) {
                ctx.err().println("flowhouse job " + name() + ": " + e.getMessage());
                return ExitCode.FAILURE;
            }
        }
    }

    @Command(
            name = "submit",
            mixinStandardHelpOptions = true,
            description = {
                "uploads the jar (POST /jars/upload) and runs it (POST /jars/:id/run); waits",
                "until the job runs (or ends) unless --no-wait, prints the job id. --jar",
                "defaults to flink-jobs/target/flink-jobs-*-job.jar, --class to the jar's",
                "Main-Class, else io.flowhouse.jobs.FlowPipelineJob.",
                ""
            })
    static final class Submit extends Action {
        @Option(names = "--jar", paramLabel = "JAR", description = "the job jar")
        Path jar;

        @Option(names = "--class", paramLabel = "CLASS", description = "the entry class")
        String entryClass;

        @Option(names = "--parallelism", paramLabel = "N", description = "job parallelism")
        Integer parallelism;

        @Option(
                names = "--from-savepoint",
                paramLabel = "PATH",
                description = "start from this savepoint")
        String fromSavepoint;

        @Option(
                names = "--allow-non-restored",
                description = "with --from-savepoint: skip state no operator takes")
        boolean allowNonRestored;

        @Option(names = "--no-wait", description = "return once submitted")
        boolean noWait;

        @Option(
                names = "--timeout",
                paramLabel = "SECONDS",
                description = "wait for RUNNING at most this long (default 120)")
        int timeout = 120;

        @Parameters(
                paramLabel = "JOB_ARGS",
                description = {
                    "after --: the job's flags: --config FILE, --set KEY=VALUE, --KEY VALUE",
                    "(keys: flink-jobs/README.md; FlowPipelineJob --help lists the forms)"
                })
        List<String> jobArgs = new ArrayList<>();

        Submit(LaunchContext ctx) {
            super(ctx);
        }

        @Override
        String name() {
            return "submit";
        }

        @Override
        int run(FlinkRestClient rest) throws IOException, InterruptedException {
            Path jarPath = jar != null ? jar : defaultJar(ctx.home().root());
            if (!Files.isRegularFile(jarPath)) {
                ctx.err()
                        .println(
                                "flowhouse job submit: no job jar at "
                                        + jarPath
                                        + " (build it with mvn -B -ntp install -DskipTests -pl"
                                        + " flink-jobs -am, or pass --jar)");
                return ExitCode.NOT_BUILT;
            }
            Optional<String> entry = Optional.ofNullable(entryClass);
            if (entry.isEmpty() && mainClass(jarPath).isEmpty()) {
                entry = Optional.of(DEFAULT_ENTRY_CLASS);
            }
            if (parallelism != null) {
                Ranges.check("--parallelism", parallelism, 1, 10_000);
            }
            Ranges.check("--timeout", timeout, 1, 3600);
            String jarId = rest.uploadJar(jarPath);
            String jobId =
                    rest.runJar(
                            jarId,
                            new FlinkRestClient.RunRequest(
                                    entry,
                                    jobArgs,
                                    Optional.ofNullable(parallelism),
                                    Optional.ofNullable(fromSavepoint),
                                    allowNonRestored));
            ctx.out()
                    .println(
                            "submitted "
                                    + jarPath.getFileName()
                                    + " as job "
                                    + jobId
                                    + " to "
                                    + rest.baseUrl());
            if (noWait) {
                return ExitCode.OK;
            }
            String state =
                    rest.awaitState(jobId, Duration.ofSeconds(timeout), "RUNNING", "FINISHED");
            ctx.out().println("job " + jobId + " is " + state);
            if ("FAILED".equals(state)) {
                rest.rootException(jobId).ifPresent(e -> ctx.err().println(firstLines(e, 20)));
                return ExitCode.FAILURE;
            }
            return FlinkRestClient.isTerminal(state) && !"FINISHED".equals(state)
                    ? ExitCode.FAILURE
                    : ExitCode.OK;
        }
    }

    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = "jobs on the cluster: id, state, name, start time")
    static final class JobList extends Action {
        JobList(LaunchContext ctx) {
            super(ctx);
        }

        @Override
        String name() {
            return "list";
        }

        @Override
        int run(FlinkRestClient rest) throws IOException, InterruptedException {
            return list(rest, ctx.out());
        }
    }

    @Command(
            name = "status",
            mixinStandardHelpOptions = true,
            description = "one job's state; for a failed job, its root exception")
    static final class Status extends Action {
        @Parameters(index = "0", paramLabel = "JOB_ID", description = "see ./flowhouse job list")
        String jobId;

        Status(LaunchContext ctx) {
            super(ctx);
        }

        @Override
        String name() {
            return "status";
        }

        @Override
        int run(FlinkRestClient rest) throws IOException, InterruptedException {
            return status(rest, jobId, ctx.out());
        }
    }

    @Command(
            name = "cancel",
            mixinStandardHelpOptions = true,
            description = {
                "cancels; with --savepoint DIR stops with a savepoint there first and prints",
                "its path (resume with submit --from-savepoint PATH)"
            })
    static final class Cancel extends Action {
        @Parameters(index = "0", paramLabel = "JOB_ID", description = "see ./flowhouse job list")
        String jobId;

        @Option(
                names = "--savepoint",
                paramLabel = "DIR",
                description = "stop with a savepoint in DIR")
        String savepoint;

        Cancel(LaunchContext ctx) {
            super(ctx);
        }

        @Override
        String name() {
            return "cancel";
        }

        @Override
        int run(FlinkRestClient rest) throws IOException, InterruptedException {
            return cancel(rest, jobId, savepoint, ctx.out());
        }
    }

    private static int list(FlinkRestClient rest, PrintStream out)
            throws IOException, InterruptedException {
        List<FlinkRestClient.JobSummary> jobs = rest.listJobs();
        if (jobs.isEmpty()) {
            out.println("no jobs on " + rest.baseUrl());
            return ExitCode.OK;
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
        return ExitCode.OK;
    }

    private static int status(FlinkRestClient rest, String jobId, PrintStream out)
            throws IOException, InterruptedException {
        String state = rest.jobState(jobId);
        out.println(jobId + " " + state);
        if ("FAILED".equals(state)) {
            rest.rootException(jobId).ifPresent(e -> out.println(firstLines(e, 20)));
        }
        return ExitCode.OK;
    }

    private static int cancel(FlinkRestClient rest, String jobId, String savepoint, PrintStream out)
            throws IOException, InterruptedException {
        Optional<String> savepointDir = Optional.ofNullable(savepoint);
        if (savepointDir.isPresent()) {
            String target = savepointDir.get();
            if (!target.contains("://")) {
                target = Path.of(target).toAbsolutePath().toUri().toString();
            }
            String location = rest.stopWithSavepoint(jobId, target, Duration.ofMinutes(5));
            out.println("stopped " + jobId + " with savepoint " + location);
            return ExitCode.OK;
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
