// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.console.ConsoleMain;
import io.flowhouse.console.config.ConsoleConfig;
import io.flowhouse.enrich.EnrichKeys;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.Http;
import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.ManagedProcess;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkKeys;
import io.flowhouse.sinks.ipfix.IpfixExporterOptions;
import io.flowhouse.sinks.kafka.FlowsTopicKeys;
import io.flowhouse.sinks.zmq.ZmqSinkOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./flowhouse up} and {@code ./flowhouse down}: the whole local pipeline in the background.
 * {@code up} starts the services, the capture agent (UDP 2055 and 4739) as a background JVM, and
 * submits the pipeline job to the local Flink cluster (with the optional ZMQ and IPFIX fan-out:
 * {@code --zmq}, {@code --ipfix-to}, {@code --flows-topic}), then returns once flows can be
 * received. {@code down} cancels the job, stops the agent and stops the services.
 */
final class PipelineCommand {

    static final String AGENT = "agent";
    static final String CONSOLE = "console";
    static final String PIPELINE_FILE = "pipeline.properties";
    static final String FLOWS_TOPIC_DEFAULT = "flows.decoded";

    private PipelineCommand() {}

    /** {@code ./flowhouse up}. */
    @Command(
            name = "up",
            mixinStandardHelpOptions = true,
            description = {
                "the whole pipeline in the background: services, agent (UDP 2055/4739/6343), Flink",
                "job",
                "",
                "Starts the local pipeline in the background and returns once it is ready:",
                "  1. ./flowhouse services up (Kafka, ClickHouse, Flink standalone cluster)",
                "  2. the capture agent (io.flowhouse.agent.CaptureAgentMain) as a background JVM,",
                "     receiving NetFlow on UDP --netflow-port (2055), IPFIX on --ipfix-port",
                "     (4739) and sFlow v5 on --sflow-port (6343); each port takes every format",
                "  3. the pipeline job (flink-jobs/target/flink-jobs-*-job.jar) submitted to the",
                "     local cluster with --kafka.bootstrap-servers and --clickhouse.url set",
                "  4. the web console (./flowhouse console) on 127.0.0.1:8090, FLOWHOUSE_CONSOLE_*",
                "Then point exporters at this host, open the console or query with",
                "./flowhouse query.",
                "Logs: .flowhouse/logs/ (agent.out, kafka.log, flink-*.log, clickhouse-server.log)",
                "",
                "The fan-out sinks (--ipfix-to, --zmq, --flows-topic) are off by default; their",
                "other keys (flowhouse.ipfix.*, flowhouse.zmq.*, flowhouse.flows-topic.*, see",
                "flink-jobs/README.md) go after --,",
                "e.g. -- --ipfix.max-message-bytes 8192",
                ""
            })
    static final class Up implements Callable<Integer> {
        private final LaunchContext ctx;

        @Mixin ServicesOptions services = new ServicesOptions();

        @Option(
                names = "--netflow-port",
                paramLabel = "N",
                description = "UDP port of the agent's NetFlow listener (default 2055)")
        int netflowPort = 2055;

        @Option(
                names = "--ipfix-port",
                paramLabel = "N",
                description = "UDP port of the agent's IPFIX listener (default 4739)")
        int ipfixPort = 4739;

        @Option(
                names = "--sflow-port",
                paramLabel = "N",
                description = "UDP port of the agent's sFlow v5 listener (default 6343)")
        int sflowPort = 6343;

        @Option(
                names = "--agent-arg",
                paramLabel = "ARGS",
                description = {
                    "extra agent arguments, space-separated in one string, e.g.",
                    "--agent-arg \"--metrics-port 0 --allow 10.0.0.0/8\""
                })
        String agentArg;

        @Option(
                names = "--ipfix-to",
                paramLabel = "HOST:PORT[/tcp]",
                description = {
                    "also re-export every flow as IPFIX to this collector (nfcapd, goflow2,",
                    "pmacct, nProbe ...; UDP unless /tcp); repeatable; job key",
                    "flowhouse.ipfix.targets"
                })
        List<String> ipfixTargets = new ArrayList<>();

        @Option(
                names = "--zmq",
                paramLabel = "ENDPOINT",
                description = {
                    "also publish every flow to ntopng over ZMQ (nDPI TLV): tcp://127.0.0.1:5556",
                    "binds loopback (ntopng -i tcp://127.0.0.1:5556; other addresses need CURVE",
                    "with a client allow-list, see sinks/README-zmq-ipfix.md), tcp://HOST:5556c",
                    "connects to ntopng -i \"tcp://*:5556c\"; job key flowhouse.zmq.endpoint"
                })
        String zmq;

        @Option(
                names = "--flows-topic",
                paramLabel = "TOPIC",
                arity = "0..1",
                fallbackValue = FLOWS_TOPIC_DEFAULT,
                description = {
                    "also write every decoded flow to this Kafka topic (flows.decoded when no",
                    "TOPIC), keyed by exporter, exactly once; job keys flowhouse.flows-topic.*"
                })
        String flowsTopic;

        @Option(
                names = "--flows-topic-format",
                paramLabel = "FORMAT",
                description = {
                    "flowhouse (flowhouse.v1.Flow, flow-schema/) or goflow2 (goflow2's",
                    "FlowMessage, length-delimited); implies --flows-topic"
                })
        String flowsTopicFormat;

        @Parameters(
                paramLabel = "JOB_ARGS",
                description = {
                    "after --: the job's flags: --config FILE, --set KEY=VALUE, --KEY VALUE",
                    "(keys: flink-jobs/README.md; FlowPipelineJob --help lists the forms)"
                })
        List<String> jobArgs = new ArrayList<>();

        Up(LaunchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() throws Exception {
            Ranges.check("--netflow-port", netflowPort, 1, 65_535);
            Ranges.check("--ipfix-port", ipfixPort, 1, 65_535);
            Ranges.check("--sflow-port", sflowPort, 1, 65_535);
            List<String> fanOut = fanOutJobArgs(ipfixTargets, Optional.ofNullable(zmq));
            fanOut.addAll(flowsTopicJobArgs(flowsTopic, flowsTopicFormat));
            return up(ctx, services.config(ctx, false), this, fanOut);
        }
    }

    /** {@code ./flowhouse down}. */
    @Command(
            name = "down",
            mixinStandardHelpOptions = true,
            description = {
                "stop what 'up' started: the job, the agent and the services",
                "",
                "Cancels the pipeline job that 'up' submitted, stops the console, the agent and",
                "then the services (./flowhouse services down), each by its recorded pid or id.",
                ""
            })
    static final class Down implements Callable<Integer> {
        private final LaunchContext ctx;

        @Mixin ServicesOptions services = new ServicesOptions();

        @Option(
                names = "--keep-services",
                description = "leave Kafka, ClickHouse and Flink running")
        boolean keepServices;

        Down(LaunchContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public Integer call() {
            return down(services.config(ctx, true), keepServices, ctx.out(), ctx.err());
        }
    }

    /**
     * The job flags that switch the decoded-flows topic on: {@code --flows-topic.enabled true},
     * with its topic and format when given; none when neither is asked for. The format is checked
     * here, so a typo fails before anything starts.
     */
    static List<String> flowsTopicJobArgs(String topic, String format) {
        List<String> jobArgs = new ArrayList<>();
        if (topic == null && format == null) {
            return jobArgs;
        }
        jobArgs.addAll(List.of("--" + FlowsTopicKeys.ENABLED.name(), "true"));
        if (topic != null) {
            if (topic.isBlank()) {
                throw new UsageError("--flows-topic needs a topic name, e.g. flows.decoded");
            }
            jobArgs.addAll(List.of("--" + FlowsTopicKeys.TOPIC.name(), topic));
        }
        if (format != null) {
            try {
                FlowsTopicKeys.FORMAT.type().parse(format);
            } catch (IllegalArgumentException e) {
                throw new UsageError("--flows-topic-format " + format + " " + e.getMessage());
            }
            jobArgs.addAll(List.of("--" + FlowsTopicKeys.FORMAT.name(), format));
        }
        return jobArgs;
    }

    /**
     * The job flags that switch the fan-out sinks on: {@code --flowhouse.ipfix.targets a,b} and
     * {@code --flowhouse.zmq.endpoint E}; none when neither is asked for. Targets are checked here,
     * so a typo fails before anything starts.
     */
    static List<String> fanOutJobArgs(List<String> ipfixTargets, Optional<String> zmq) {
        List<String> jobArgs = new ArrayList<>();
        if (!ipfixTargets.isEmpty()) {
            for (String t : ipfixTargets) {
                try {
                    IpfixExporterOptions.Target.parse(t);
                } catch (IllegalArgumentException e) {
                    throw new UsageError("--ipfix-to " + t + ": " + e.getMessage());
                }
            }
            jobArgs.addAll(
                    List.of(
                            "--" + IpfixExporterOptions.TARGETS_KEY,
                            String.join(",", ipfixTargets)));
        }
        if (zmq.isPresent()) {
            if (zmq.get().isBlank()) {
                throw new UsageError("--zmq needs an endpoint, e.g. tcp://127.0.0.1:5556");
            }
            jobArgs.addAll(List.of("--" + ZmqSinkOptions.ENDPOINT_KEY, zmq.get()));
        }
        return jobArgs;
    }

    private static int up(LaunchContext ctx, ServicesConfig config, Up options, List<String> fanOut)
            throws Exception {
        FlowhouseHome home = ctx.home();
        PrintStream out = ctx.out();
        PrintStream err = ctx.err();
        List<String> missing = PipelineParts.missingForUp(home.root());
        if (!missing.isEmpty()) {
            err.println("flowhouse up: the pipeline is not built yet; missing:");
            missing.forEach(m -> err.println("  - " + m));
            err.println(
                    "build with: mvn -B -ntp install -DskipTests  (./flowhouse services up starts"
                            + " the services alone)");
            return ExitCode.NOT_BUILT;
        }
        int netflowPort = options.netflowPort;
        int ipfixPort = options.ipfixPort;
        int sflowPort = options.sflowPort;
        ServicesManager services = new ServicesManager(config);
        out.println("starting services (Kafka, ClickHouse, Flink) ...");
        services.startAll();

        ManagedProcess agent = agentProcess(config);
        if (agent.running().isEmpty()) {
            List<String> command = new ArrayList<>();
            command.add(config.javaBin());
            command.add("-Xmx512m");
            command.add(
                    "-Dlog4j2.configurationFile="
                            + home.root()
                                    .resolve(
                                            "launcher/target/classes/flowhouse-cli-log4j2.properties"));
            command.add("-Dflowhouse.service=" + AGENT + "@" + config.stateDir());
            command.add("-cp");
            command.add(
                    home.root().resolve("launcher/target/lib")
                            + "/*:"
                            + home.root().resolve("launcher/target/classes"));
            command.add(PipelineParts.AGENT_MAIN);
            command.add("--bootstrap-servers");
            command.add(config.kafkaBootstrap());
            command.add("--listen");
            command.add("[::]:" + netflowPort);
            command.add("--listen");
            command.add("[::]:" + ipfixPort);
            command.add("--listen");
            command.add("[::]:" + sflowPort);
            command.add("--spool-dir");
            command.add(config.stateDir().resolve("agent-spool").toString());
            if (options.agentArg != null) {
                command.addAll(List.of(options.agentArg.split("\\s+")));
            }
            ProcessHandle handle =
                    agent.start(
                            command,
                            config.stateDir(),
                            Map.of("FLOWHOUSE_KAFKA_BOOTSTRAP", config.kafkaBootstrap()));
            if (!LocalPorts.awaitUdpBound(
                    handle, List.of(netflowPort, ipfixPort, sflowPort), Duration.ofSeconds(60))) {
                err.println(
                        "flowhouse up: the agent did not bind UDP "
                                + netflowPort
                                + "/"
                                + ipfixPort
                                + "/"
                                + sflowPort);
                err.println(agent.logTail(30));
                agent.stop(config.stopTimeout());
                return ExitCode.FAILURE;
            }
            out.println(
                    "agent listens on UDP "
                            + netflowPort
                            + " (NetFlow), "
                            + ipfixPort
                            + " (IPFIX) and "
                            + sflowPort
                            + " (sFlow), pid "
                            + handle.pid());
        }

        FlinkRestClient rest = new FlinkRestClient(config.flinkRestUrl());
        Optional<String> jobId = recordedJob(config);
        if (jobId.isPresent() && "RUNNING".equals(safeState(rest, jobId.get()))) {
            out.println("pipeline job " + jobId.get() + " already runs");
        } else {
            List<String> jobArgs = new ArrayList<>();
            jobArgs.addAll(List.of("--kafka.bootstrap-servers", config.kafkaBootstrap()));
            // Every replica, tried in order; with replicas the schema is created ON CLUSTER.
            jobArgs.addAll(List.of("--clickhouse.url", config.clickhouseUrls()));
            if (!config.clickhouseCluster().isEmpty()) {
                jobArgs.addAll(List.of("--clickhouse.cluster", config.clickhouseCluster()));
            }
            // The path of the generated password, never the password itself.
            jobArgs.addAll(
                    List.of(
                            "--clickhouse.password-file",
                            config.clickhousePasswordFile().toString()));
            jobArgs.addAll(fanOut);
            jobArgs.addAll(options.jobArgs);
            String jarId = rest.uploadJar(JobCommand.defaultJar(home.root()));
            String id =
                    rest.runJar(
                            jarId,
                            new FlinkRestClient.RunRequest(
                                    Optional.of(PipelineParts.PIPELINE_JOB),
                                    jobArgs,
                                    Optional.empty(),
                                    Optional.empty(),
                                    false));
            String state = rest.awaitState(id, Duration.ofSeconds(120), "RUNNING");
            if (!"RUNNING".equals(state)) {
                err.println("flowhouse up: the pipeline job " + id + " is " + state);
                rest.rootException(id).ifPresent(err::println);
                return ExitCode.FAILURE;
            }
            recordJob(config, id);
            out.println("pipeline job " + id + " runs on " + config.flinkRestUrl());
        }
        Config job = jobConfig(ctx, options.jobArgs);
        loadAsNames(config, job, out, err);
        String consoleUrl =
                startConsole(
                        ctx, config, job == null ? null : job.get(ClickHouseSinkKeys.DATABASE));
        if (consoleUrl == null) {
            return ExitCode.FAILURE;
        }
        out.println();
        out.println(
                "ready: send NetFlow v5/v9 to UDP "
                        + netflowPort
                        + ", IPFIX to UDP "
                        + ipfixPort
                        + ", sFlow v5 to UDP "
                        + sflowPort);
        out.println("console: " + consoleUrl);
        if (!fanOut.isEmpty()) {
            out.println("fan-out: " + String.join(" ", fanOut));
        }
        out.println("query: ./flowhouse query \"SELECT count() FROM flows\"");
        out.println("stop:  ./flowhouse down");
        return ExitCode.OK;
    }

    /**
     * Fills {@code as_names} from the job's ASN database, if it has one, in the job's database: the
     * job's writers create the table as they open; the names are read at query time.
     */
    private static void loadAsNames(
            ServicesConfig config, Config job, PrintStream out, PrintStream err)
            throws InterruptedException {
        Path asnDatabase = job == null ? null : job.get(EnrichKeys.ASN_DATABASE);
        if (asnDatabase != null) {
            EnrichCommand.load(
                    config,
                    job.get(ClickHouseSinkKeys.DATABASE),
                    asnDatabase,
                    Duration.ofSeconds(120),
                    out,
                    err);
        }
    }

    /** The job's config as its flags and the environment set it; null if it does not resolve. */
    private static Config jobConfig(LaunchContext ctx, List<String> jobArgs) {
        try {
            return JobArgs.resolve(
                    ctx.env(),
                    new PrintStream(OutputStream.nullOutputStream()),
                    jobArgs.toArray(String[]::new));
        } catch (ConfigException e) {
            return null; // the job reported it when it was submitted
        }
    }

    private static int down(
            ServicesConfig config, boolean keepServices, PrintStream out, PrintStream err) {
        int code = 0;
        Optional<String> jobId = recordedJob(config);
        if (jobId.isPresent()) {
            FlinkRestClient rest = new FlinkRestClient(config.flinkRestUrl());
            try {
                rest.cancel(jobId.get());
                out.println("cancelled pipeline job " + jobId.get());
            } catch (IOException e) {
                out.println("pipeline job " + jobId.get() + " not cancelled: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ExitCode.INTERRUPTED;
            }
            try {
                Files.deleteIfExists(config.stateDir().resolve(PIPELINE_FILE));
            } catch (IOException e) {
                err.println("cannot delete " + PIPELINE_FILE + ": " + e.getMessage());
                code = 1;
            }
        }
        if (consoleProcess(config).stop(config.stopTimeout())) {
            out.println("stopped the console");
        }
        if (agentProcess(config).stop(config.stopTimeout())) {
            out.println("stopped the agent");
        }
        if (!keepServices) {
            for (var kind : new ServicesManager(config).stopAll()) {
                out.println("stopped " + kind.serviceName());
            }
        }
        return code;
    }

    /**
     * The console as a background JVM on the local services (its keys from the environment: {@code
     * FLOWHOUSE_CONSOLE_*}), reading the job's database unless the environment names another;
     * returns its URL once it answers, or null.
     */
    private static String startConsole(LaunchContext ctx, ServicesConfig config, String database)
            throws InterruptedException {
        Map<String, String> env =
                ConsoleMain.localEnvironment(
                        ctx.env(),
                        config.clickhouseUrl(),
                        config.stateDir(),
                        config.kafkaBootstrap());
        if (database != null) {
            env.putIfAbsent("FLOWHOUSE_CONSOLE_CLICKHOUSE_DATABASE", database);
        }
        ConsoleConfig console;
        try {
            console = ConsoleMain.config(env);
        } catch (RuntimeException e) {
            throw new UsageError("console: " + e.getMessage());
        }
        String url = "http://" + console.host() + ":" + console.port() + "/";
        ManagedProcess process = consoleProcess(config);
        if (process.running().isPresent()) {
            ctx.out().println("console already runs: " + url);
            return url;
        }
        FlowhouseHome home = ctx.home();
        List<String> command =
                List.of(
                        config.javaBin(),
                        "-Xmx256m",
                        "-Dlog4j2.configurationFile="
                                + home.root()
                                        .resolve(
                                                "launcher/target/classes/flowhouse-cli-log4j2.properties"),
                        "-Dflowhouse.service=" + CONSOLE + "@" + config.stateDir(),
                        "-cp",
                        home.root().resolve("launcher/target/lib")
                                + "/*:"
                                + home.root().resolve("launcher/target/classes"),
                        PipelineParts.CONSOLE_MAIN);
        // Every console key the launcher resolved, so the console listens where it was told
        // (the launcher's environment may be given, not inherited: tests, embedding).
        Map<String, String> extra = new HashMap<>();
        env.forEach(
                (k, v) -> {
                    if (k.startsWith("FLOWHOUSE_CONSOLE_")) {
                        extra.put(k, v);
                    }
                });
        process.start(command, config.stateDir(), extra);
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (Http.get(url + "health", Duration.ofSeconds(2)).ok()) {
                    return url;
                }
            } catch (IOException e) {
                // not up yet
            }
            if (process.running().isEmpty()) {
                break;
            }
            Thread.sleep(500);
        }
        ctx.err().println("flowhouse up: the console did not start; end of its log:");
        ctx.err().println(process.logTail(30));
        process.stop(config.stopTimeout());
        return null;
    }

    static ManagedProcess consoleProcess(ServicesConfig config) {
        return new ManagedProcess(
                CONSOLE,
                config.pidDir(),
                config.logDir(),
                "-Dflowhouse.service=" + CONSOLE + "@" + config.stateDir());
    }

    static ManagedProcess agentProcess(ServicesConfig config) {
        return new ManagedProcess(
                AGENT,
                config.pidDir(),
                config.logDir(),
                "-Dflowhouse.service=" + AGENT + "@" + config.stateDir());
    }

    private static String safeState(FlinkRestClient rest, String jobId) {
        try {
            return rest.jobState(jobId);
        } catch (IOException e) {
            return "UNKNOWN";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "UNKNOWN";
        }
    }

    private static Optional<String> recordedJob(ServicesConfig config) {
        Path file = config.stateDir().resolve(PIPELINE_FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            props.load(in);
        } catch (IOException e) {
            return Optional.empty();
        }
        return Optional.ofNullable(props.getProperty("job-id"));
    }

    private static void recordJob(ServicesConfig config, String jobId) throws IOException {
        Properties props = new Properties();
        props.setProperty("job-id", jobId);
        try (OutputStream out = Files.newOutputStream(config.stateDir().resolve(PIPELINE_FILE))) {
            props.store(out, "written by ./flowhouse up");
        }
    }
}
