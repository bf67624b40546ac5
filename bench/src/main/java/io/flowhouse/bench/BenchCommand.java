// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import io.flowhouse.kafka.TopicAdmin;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.services.clickhouse.ClickHousePassword;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code ./flowhouse bench <stage>}: repeatable benchmarks on this machine, loopback only, bounded
 * in time. Writes a terminal table and {@code bench/results/<stage>-<run>.json}, {@code .csv} and
 * {@code .png}. The launcher adds this command as it is; nothing else of the bench is public.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "run the benchmarks and write bench/results",
        footer = {
            "",
            "Stages:",
            "  agent    loadgen -> capture agent -> Kafka: drop-free search (records in",
            "           Kafka vs sent, kernel socket drops, agent rejects/drops), CPU and",
            "           memory per process",
            "  e2e      ./flowhouse up, then loadgen -> agent -> Kafka -> Flink ->",
            "           ClickHouse: drop-free search on rows (and exact packet/byte sums),",
            "           each row visible within --max-lag of the step's end (sustained);",
            "           --enrich on,off: both jobs on the same ladder after the same",
            "           warm-up (--warm-up-seconds, --warm-up-rate); the gap above the last",
            "           clean rung is bisected to 3 %%; JOB_ARGS after -- go to the job",
            "  kafka-out  ./flowhouse up --flows-topic (exactly once), then loadgen ->",
            "           agent -> Kafka -> Flink -> the decoded-flows topic: drop-free search",
            "           on committed records (read_committed; flows, packets, bytes exact per",
            "           exporter); goflow2 -> Kafka on the same load; --topic-only: no",
            "           ClickHouse and no rollups in the job; JOB_ARGS after -- go to the job",
            "  packets  synthetic packet pcap -> agent --pcap -> Kafka: packets/s, every",
            "           packet parsed and every batch in Kafka (--flows N, default 20000)",
            "  decode   decoder throughput (datagrams/s, records/s) per protocol",
            "  ipfix    IPFIX re-export (the sinks' IpfixExporter) -> nfcapd and goflow2:",
            "           drop-free search per collector and message size",
            "  zmq      ntopng ZMQ bridge (the sinks' ZmqPublisher) -> a SUB subscriber:",
            "           throughput and CPU per flow, drop-free search, slow-subscriber",
            "           accounting",
            "",
            "See bench/README.md."
        })
public final class BenchCommand implements Callable<Integer> {

    @Spec CommandSpec spec;

    @Mixin BenchOptions options = new BenchOptions();

    @Parameters(
            index = "0",
            paramLabel = "STAGE",
            description = "agent, e2e, kafka-out, packets, decode, ipfix or zmq")
    String stage;

    @Parameters(
            index = "1..*",
            paramLabel = "JOB_ARGS",
            description = "e2e: arguments for the job (after --)")
    List<String> jobArgs = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;

    /** Writes to the process's stdout and stderr. */
    public BenchCommand() {
        this(System.out, System.err);
    }

    public BenchCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** Parses {@code args} and runs the stage; the exit code (2 for a usage mistake). */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return new CommandLine(new BenchCommand(out, err))
                .setOut(new java.io.PrintWriter(out, true))
                .setErr(new java.io.PrintWriter(err, true))
                .execute(args);
    }

    @Override
    public Integer call() throws Exception {
        FlowhouseHome home = FlowhouseHome.detect();
        Path results =
                options.resultsDir != null
                        ? options.resultsDir
                        : home.root().resolve("bench/results");
        String runId =
                ZonedDateTime.now(ZoneOffset.UTC)
                        .format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT));
        try {
            return switch (stage) {
                case "agent" -> agent(options, home, results, runId, out);
                case "decode" -> DecodeBench.run(results, runId, out, err);
                case "e2e" -> e2e(options, jobArgs, home, results, runId, out, err);
                case "kafka-out" -> kafkaOut(options, jobArgs, home, results, runId, out, err);
                case "packets" -> packets(options, home, results, runId, out);
                case "ipfix" -> IpfixBench.run(options, home.stateDir(), results, runId, out);
                case "zmq" -> ZmqBench.run(options, results, runId, out);
                default ->
                        throw new CommandLine.ParameterException(
                                spec.commandLine(),
                                "unknown stage '"
                                        + stage
                                        + "' (expected: agent, e2e, kafka-out, packets, decode, ipfix, zmq)");
            };
        } catch (BenchOptions.UsageError e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private static int agent(
            BenchOptions cl, FlowhouseHome home, Path results, String runId, PrintStream out)
            throws Exception {
        long deadline = System.nanoTime() + cl.timeLimitSeconds() * 1_000_000_000L;
        List<Double> rates = cl.rates("25000,50000,100000,200000,400000,800000");
        DropFreeSearch.Settings settings =
                cl.agent(
                        new DropFreeSearch.Settings(
                                cl.protocol(),
                                cl.exporters(),
                                rates,
                                cl.stepSeconds(8),
                                15_000,
                                cl.replayPool(),
                                cl.bind,
                                cl.maxDatagram()));
        ServicesConfig services =
                ServicesConfig.resolve(
                        home.root(), home.stateDir(), System.getenv(), Map.of(), true);
        String bootstrap = cl.bootstrapServers(services.kafkaBootstrap());
        ServicesManager manager = new ServicesManager(services);
        boolean startedKafka = false;
        if (!answers(bootstrap)) {
            out.println("bench: starting Kafka (" + services.kafkaBootstrap() + ") ...");
            manager.start(ServiceKind.KAFKA);
            startedKafka = true;
            bootstrap = services.kafkaBootstrap();
        }
        Path work = Files.createDirectories(home.stateDir().resolve("bench").resolve(runId));
        List<SystemResult> systems = new ArrayList<>();
        try (TopicAdmin kafka = TopicAdmin.connect(bootstrap, new Properties())) {
            BenchContext ctx =
                    new BenchContext(
                            runId,
                            work,
                            results,
                            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                            System.getProperty("java.class.path"),
                            bootstrap,
                            kafka);
            Map<String, Long> shared = new LinkedHashMap<>();
            shared.put("loadgen", ProcessHandle.current().pid());
            manager.pid(ServiceKind.KAFKA).ifPresent(pid -> shared.put("kafka", pid));
            DropFreeSearch search = new DropFreeSearch(settings, out, shared);
            search.warmUp();
            List<Collector> collectors = new ArrayList<>();
            collectors.add(new AgentCollector(ctx, cl.agentRecordDatagrams()));
            if (cl.peers) {
                boolean sflow = settings.protocol().equals("sflow");
                collectors.add(
                        new Goflow2Collector(ctx, PeerTools.goflow2(out), settings.protocol()));
                Path[] nf = sflow ? PeerTools.sfcapd(out) : PeerTools.nfdump(out);
                collectors.add(new NfcapdCollector(ctx, nf[0], nf[1]));
            }
            for (int i = 0; i < collectors.size(); i++) {
                long left = deadline - System.nanoTime();
                long share = left / (collectors.size() - i);
                systems.add(search.run(collectors.get(i), System.nanoTime() + share));
            }
        } finally {
            if (startedKafka) {
                manager.stop(ServiceKind.KAFKA);
            }
        }
        BenchReport.print(out, "agent", systems);
        String settingsJson =
                String.format(
                        Locale.ROOT,
                        "{\"protocol\": \"%s\", \"exporters\": %d, \"step_seconds\": %d,"
                                + " \"replay_pool\": %d, \"max_datagram\": %d, \"rates\": %s,"
                                + " \"warm_up_rates\": %s, \"warm_up_seconds_each\": %d,"
                                + " \"refine_steps\": %d, \"refine_gap\": %.3f,"
                                + " \"kafka\": \"%s\"}",
                        settings.protocol(),
                        settings.exporters(),
                        settings.stepSeconds(),
                        settings.replayPool(),
                        settings.maxDatagram(),
                        rates,
                        settings.warmUp().rates(),
                        settings.warmUp().secondsEach(),
                        settings.refineSteps(),
                        settings.refineGap(),
                        bootstrap);
        Path json = BenchReport.write(results, "agent", runId, settingsJson, systems);
        out.println("bench: results in " + json + " (+ .csv, .png)");
        boolean anyError = systems.stream().anyMatch(s -> s.steps().isEmpty());
        return anyError ? 1 : 0;
    }

    /**
     * {@code bench e2e}: {@code ./flowhouse up} (services, agent, job), then the drop-free search
     * with rows in ClickHouse as the output; {@code ./flowhouse down} afterwards if the pipeline
     * was not up before.
     */
    private static int e2e(
            BenchOptions cl,
            List<String> jobArgs,
            FlowhouseHome home,
            Path results,
            String runId,
            PrintStream out,
            PrintStream err)
            throws Exception {
        List<Double> rates = cl.rates("5000,10000,20000,40000,80000,160000,320000");
        DropFreeSearch.Settings settings =
                cl.e2e(
                        new DropFreeSearch.Settings(
                                cl.protocol(),
                                cl.exporters(),
                                rates,
                                cl.stepSeconds(10),
                                60_000,
                                cl.replayPool(),
                                cl.bind,
                                cl.maxDatagram()));
        ServicesConfig services =
                ServicesConfig.resolve(
                        home.root(), home.stateDir(), System.getenv(), Map.of(), true);
        int port = 4739;
        List<Boolean> modes = cl.enrich();
        double maxLag = cl.maxLagSeconds();
        boolean wasUp = LocalPorts.udpBound(port);
        if (wasUp && cl.enrich != null) {
            err.println(
                    "bench e2e: --enrich starts the pipeline itself, but one is up already (UDP "
                            + port
                            + "); ./flowhouse down first");
            return 2;
        }
        Path geo = Path.of(System.getProperty("user.home"), ".cache", "flowhouse", "geo");
        List<String> enrichArgs =
                List.of(
                        "--enrich.geoip.country-database",
                        geo.resolve("country.mmdb").toString(),
                        "--enrich.geoip.asn-database",
                        geo.resolve("asn.mmdb").toString());
        if (modes.contains(Boolean.TRUE)
                && !(Files.isRegularFile(geo.resolve("country.mmdb"))
                        && Files.isRegularFile(geo.resolve("asn.mmdb")))) {
            err.println(
                    "bench e2e: --enrich on needs "
                            + geo.resolve("country.mmdb")
                            + " and asn.mmdb (./flowhouse demo or"
                            + " enrichment/scripts/fetch-geo-data.sh fetches them)");
            return 2;
        }
        // A pipeline the bench starts writes the bench's own database, emptied before each setting;
        // one that was up already is measured where it writes.
        String database = wasUp || cl.database != null ? cl.database() : BenchDatabase.OWN;
        List<SystemResult> systems = new ArrayList<>();
        for (boolean enriched : modes) {
            if (!wasUp) {
                // The job starts at the end of flows.raw: the search counts each step's rows only,
                // and a backlog left by an earlier run (offsets are committed on checkpoints, so a
                // run whose TaskManager failed leaves one) would be processed first and skew every
                // step. Job keys after -- go to the job, e.g. -- --job.checkpoint-interval "5 s".
                List<String> up =
                        new ArrayList<>(
                                List.of(
                                        "up",
                                        "--",
                                        "--kafka.start",
                                        "latest",
                                        "--clickhouse.database",
                                        database));
                up.addAll(jobArgs);
                if (enriched) {
                    up.addAll(enrichArgs);
                }
                out.println("bench e2e: ./flowhouse " + String.join(" ", up) + " ...");
                int code = flowhouse(home, up, out);
                if (code != 0) {
                    err.println(
                            "bench e2e: ./flowhouse up failed (exit " + code + "); stopping again");
                    flowhouse(home, List.of("down"), out);
                    return code;
                }
            }
            try {
                // After up: the first up on a fresh machine writes the password file.
                ClickHouseHttp clickhouse =
                        new ClickHouseHttp(
                                services.clickhouseUrl(),
                                ClickHousePassword.headersFor(services.clickhousePasswordFile()));
                // The same ClickHouse for each setting: no rows and no merges of an earlier one.
                BenchDatabase bench = new BenchDatabase(clickhouse);
                if (BenchDatabase.OWN.equals(database)) {
                    out.println("bench e2e: emptied " + database + ": " + bench.empty(database));
                }
                bench.awaitNoMerges(Duration.ofMinutes(5), out);
                // Each setting gets the whole time limit for its steps, from the end of its
                // start-up (minutes on a loaded machine): the same ladder for each.
                long deadline = System.nanoTime() + cl.timeLimitSeconds() * 1_000_000_000L;
                ServicesManager manager = new ServicesManager(services);
                Map<String, Long> pids = new LinkedHashMap<>();
                agentPid(services).ifPresent(p -> pids.put("agent", p));
                manager.pid(ServiceKind.KAFKA).ifPresent(p -> pids.put("kafka", p));
                manager.pid(ServiceKind.FLINK_TASKMANAGER).ifPresent(p -> pids.put("flink-tm", p));
                manager.pid(ServiceKind.FLINK_JOBMANAGER).ifPresent(p -> pids.put("flink-jm", p));
                manager.pid(ServiceKind.CLICKHOUSE).ifPresent(p -> pids.put("clickhouse", p));
                Map<String, Long> shared = new LinkedHashMap<>();
                shared.put("loadgen", ProcessHandle.current().pid());
                DropFreeSearch search = new DropFreeSearch(settings, out, shared);
                search.warmUp();
                PipelineCollector pipeline =
                        new PipelineCollector(
                                clickhouse,
                                database,
                                port,
                                pids,
                                9464,
                                enriched ? "flowhouse-pipeline+enrich" : "flowhouse-pipeline",
                                maxLag);
                systems.add(search.run(pipeline, deadline));
            } finally {
                if (!wasUp) {
                    out.println("bench e2e: ./flowhouse down ...");
                    flowhouse(home, List.of("down"), out);
                }
            }
        }
        BenchReport.print(out, "e2e", systems);
        String settingsJson =
                String.format(
                        Locale.ROOT,
                        "{\"protocol\": \"%s\", \"exporters\": %d, \"step_seconds\": %d,"
                                + " \"replay_pool\": %d, \"bind\": \"%s\", \"rates\": %s,"
                                + " \"warm_up_rates\": %s, \"warm_up_seconds_each\": %d,"
                                + " \"refine_steps\": %d, \"refine_gap\": %.3f,"
                                + " \"max_lag_s\": %.2f, \"enrich\": \"%s\"}",
                        settings.protocol(),
                        settings.exporters(),
                        settings.stepSeconds(),
                        settings.replayPool(),
                        settings.bind() == null ? "127.0.0.1" : settings.bind(),
                        rates,
                        settings.warmUp().rates(),
                        settings.warmUp().secondsEach(),
                        settings.refineSteps(),
                        settings.refineGap(),
                        maxLag,
                        modes.stream()
                                .map(on -> on ? "on" : "off")
                                .collect(java.util.stream.Collectors.joining(",")));
        Path json = BenchReport.write(results, "e2e", runId, settingsJson, systems);
        out.println("bench: results in " + json + " (+ .csv, .png)");
        return systems.stream().anyMatch(x -> x.steps().isEmpty()) ? 1 : 0;
    }

    /**
     * {@code bench kafka-out}: {@code ./flowhouse up --flows-topic} with exactly-once delivery, the
     * drop-free search on the topic's committed records ({@link FlowsTopicCollector}), then goflow2
     * with its Kafka output on the same load; {@code ./flowhouse down} afterwards if the pipeline
     * was not up before.
     */
    private static int kafkaOut(
            BenchOptions cl,
            List<String> jobArgs,
            FlowhouseHome home,
            Path results,
            String runId,
            PrintStream out,
            PrintStream err)
            throws Exception {
        List<Double> rates = cl.rates("25000,50000,100000,150000,225000,300000,400000");
        DropFreeSearch.Settings settings =
                new DropFreeSearch.Settings(
                        cl.protocol(),
                        cl.exporters(),
                        rates,
                        cl.stepSeconds(10),
                        60_000,
                        cl.replayPool(),
                        cl.bind,
                        cl.maxDatagram());
        ServicesConfig services =
                ServicesConfig.resolve(
                        home.root(), home.stateDir(), System.getenv(), Map.of(), true);
        int port = 4739;
        if (LocalPorts.udpBound(port)) {
            err.println(
                    "bench kafka-out: UDP "
                            + port
                            + " is taken (a pipeline is up?): the stage starts its own with the"
                            + " flows topic on; run ./flowhouse down first");
            return 1;
        }
        // One topic for every run (each run reads from its end): per-run topics would pile up.
        String topic = "bench-flows-decoded";
        List<String> up =
                new ArrayList<>(
                        List.of(
                                "up",
                                "--flows-topic",
                                topic,
                                "--",
                                "--kafka.start",
                                "latest",
                                "--flows-topic.delivery-guarantee",
                                "exactly-once"));
        if (cl.topicOnly) {
            // A topic-only deployment: the topic is the job's one output.
            up.addAll(List.of("--clickhouse.enabled", "false", "--rollup.enabled", "false"));
        }
        up.addAll(jobArgs);
        out.println("bench kafka-out: ./flowhouse " + String.join(" ", up) + " ...");
        int code = flowhouse(home, up, out);
        if (code != 0) {
            err.println(
                    "bench kafka-out: ./flowhouse up failed (exit " + code + "); stopping again");
            flowhouse(home, List.of("down"), out);
            return code;
        }
        // The bound counts from here: up alone takes minutes on a loaded machine.
        long deadline = System.nanoTime() + cl.timeLimitSeconds() * 1_000_000_000L;
        String bootstrap = services.kafkaBootstrap();
        Path work = Files.createDirectories(home.stateDir().resolve("bench").resolve(runId));
        List<SystemResult> systems = new ArrayList<>();
        try (TopicAdmin kafka = TopicAdmin.connect(bootstrap, new Properties())) {
            ServicesManager manager = new ServicesManager(services);
            Map<String, Long> pids = new LinkedHashMap<>();
            agentPid(services).ifPresent(p -> pids.put("agent", p));
            manager.pid(ServiceKind.FLINK_TASKMANAGER).ifPresent(p -> pids.put("flink-tm", p));
            manager.pid(ServiceKind.FLINK_JOBMANAGER).ifPresent(p -> pids.put("flink-jm", p));
            manager.pid(ServiceKind.CLICKHOUSE).ifPresent(p -> pids.put("clickhouse", p));
            Map<String, Long> shared = new LinkedHashMap<>();
            shared.put("loadgen", ProcessHandle.current().pid());
            manager.pid(ServiceKind.KAFKA).ifPresent(p -> shared.put("kafka", p));
            DropFreeSearch search = new DropFreeSearch(settings, out, shared);
            search.warmUp();
            FlowsTopicCollector pipeline =
                    new FlowsTopicCollector(bootstrap, topic, port, pids, 9464);
            // The pipeline's steps wait for checkpoints: it gets two thirds of the time.
            long left = deadline - System.nanoTime();
            systems.add(search.run(pipeline, System.nanoTime() + left * 2 / 3));
            BenchContext ctx =
                    new BenchContext(
                            runId,
                            work,
                            results,
                            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                            System.getProperty("java.class.path"),
                            bootstrap,
                            kafka);
            systems.add(
                    search.run(
                            new Goflow2Collector(ctx, PeerTools.goflow2(out), settings.protocol()),
                            deadline));
        } finally {
            out.println("bench kafka-out: ./flowhouse down ...");
            flowhouse(home, List.of("down"), out);
        }
        BenchReport.print(out, "kafka-out", systems);
        String settingsJson =
                String.format(
                        Locale.ROOT,
                        "{\"protocol\": \"%s\", \"exporters\": %d, \"step_seconds\": %d,"
                                + " \"replay_pool\": %d, \"rates\": %s, \"topic\": \"%s\","
                                + " \"delivery\": \"exactly-once\", \"clickhouse\": %s,"
                                + " \"job_args\": \"%s\"}",
                        settings.protocol(),
                        settings.exporters(),
                        settings.stepSeconds(),
                        settings.replayPool(),
                        rates,
                        topic,
                        !cl.topicOnly,
                        String.join(" ", jobArgs).replace("\"", "'"));
        Path json = BenchReport.write(results, "kafka-out", runId, settingsJson, systems);
        out.println("bench: results in " + json + " (+ .csv, .png)");
        return systems.stream().anyMatch(s -> s.steps().isEmpty()) ? 1 : 0;
    }

    /** {@code bench packets}: needs Kafka like {@code agent}; see {@link PacketsBench}. */
    private static int packets(
            BenchOptions cl, FlowhouseHome home, Path results, String runId, PrintStream out)
            throws Exception {
        ServicesConfig services =
                ServicesConfig.resolve(
                        home.root(), home.stateDir(), System.getenv(), Map.of(), true);
        String bootstrap = cl.bootstrapServers(services.kafkaBootstrap());
        ServicesManager manager = new ServicesManager(services);
        boolean startedKafka = false;
        if (!answers(bootstrap)) {
            out.println("bench: starting Kafka (" + services.kafkaBootstrap() + ") ...");
            manager.start(ServiceKind.KAFKA);
            startedKafka = true;
            bootstrap = services.kafkaBootstrap();
        }
        Path work = Files.createDirectories(home.stateDir().resolve("bench").resolve(runId));
        try (TopicAdmin kafka = TopicAdmin.connect(bootstrap, new Properties())) {
            BenchContext ctx =
                    new BenchContext(
                            runId,
                            work,
                            results,
                            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                            System.getProperty("java.class.path"),
                            bootstrap,
                            kafka);
            return PacketsBench.run(cl, ctx, out);
        } finally {
            if (startedKafka) {
                manager.stop(ServiceKind.KAFKA);
            }
        }
    }

    /**
     * Runs {@code ./flowhouse ARGS} of this checkout as a user would (the pipeline the e2e stage
     * measures is the one {@code up} starts), its output copied to {@code out}; its exit code.
     */
    private static int flowhouse(FlowhouseHome home, List<String> args, PrintStream out)
            throws Exception {
        List<String> command = new ArrayList<>();
        command.add(home.root().resolve("flowhouse").toString());
        command.addAll(args);
        ProcessBuilder builder =
                new ProcessBuilder(command)
                        .directory(home.root().toFile())
                        .redirectErrorStream(true);
        // Built already: this JVM runs from that build.
        builder.environment().put("FLOWHOUSE_NO_BUILD", "1");
        Process process = builder.start();
        try (BufferedReader lines =
                new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                out.println(line);
            }
        }
        return process.waitFor();
    }

    /**
     * The agent {@code up} started for this checkout, by the service mark it gives it: on a shared
     * machine another checkout's agent may run the same main class.
     */
    static java.util.Optional<Long> agentPid(ServicesConfig services) {
        return findProcess("-Dflowhouse.service=agent@" + services.stateDir());
    }

    /**
     * The pid of a running process with {@code mainClass} (or any other exact argument) on its
     * command line (read-only look).
     */
    static java.util.Optional<Long> findProcess(String mainClass) {
        return ProcessHandle.allProcesses()
                .filter(
                        p ->
                                p.info()
                                        .arguments()
                                        .map(a -> List.of(a).contains(mainClass))
                                        .orElse(false))
                .map(ProcessHandle::pid)
                .findFirst();
    }

    private static boolean answers(String bootstrap) {
        String first = bootstrap.split(",")[0].trim();
        int colon = first.lastIndexOf(':');
        try (Socket s = new Socket()) {
            s.connect(
                    new InetSocketAddress(
                            first.substring(0, colon),
                            Integer.parseInt(first.substring(colon + 1))),
                    1_000);
            return true;
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }
}
