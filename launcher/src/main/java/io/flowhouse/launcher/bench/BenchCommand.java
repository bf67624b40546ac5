// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.bench;

import io.flowhouse.launcher.CommandLine;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * {@code ./flowhouse bench <stage> [--peers]}: repeatable benchmarks on this machine, loopback
 * only, bounded in time. Writes a terminal table and {@code bench/results/<stage>-<run>.json},
 * {@code .csv} and {@code .png}.
 *
 * <p>Stages: {@code agent} (loadgen -> capture agent -> Kafka, drop-free search; {@code --peers}
 * adds goflow2 -> Kafka and nfcapd -> files on the same load in the same run) and {@code decode}
 * (the codec's decoders on loadgen datagrams and the test captures).
 */
public final class BenchCommand {

    static final String HELP =
            String.join(
                    "\n",
                    "usage: flowhouse bench <stage> [options]",
                    "stages:",
                    "  agent     loadgen -> capture agent -> Kafka: drop-free search (records in"
                            + " Kafka vs sent, kernel socket drops, agent rejects/drops), CPU and"
                            + " memory per process",
                    "  e2e       ./flowhouse up, then loadgen -> agent -> Kafka -> Flink -> ClickHouse:"
                            + " drop-free search on rows (and exact packet/byte sums)",
                    "  packets   synthetic packet pcap -> agent --pcap -> Kafka: packets/s, every"
                            + " packet parsed and every batch in Kafka (--flows N, default 20000)",
                    "  decode    decoder throughput (datagrams/s, records/s) per protocol",
                    "  ipfix     IPFIX re-export (the sinks' IpfixExporter) -> nfcapd and goflow2:"
                            + " drop-free search per collector and message size (records in"
                            + " nfdump -I / goflow2's output vs sent, kernel socket drops)",
                    "  zmq       ntopng ZMQ bridge (the sinks' ZmqPublisher) -> a SUB subscriber:"
                            + " throughput and CPU per flow, drop-free search, slow-subscriber"
                            + " accounting",
                    "options:",
                    "  --peers                 also run goflow2 (-> Kafka) and nfcapd (-> files) on"
                            + " the same load (installed when missing)",
                    "  --rates LIST            offered flows/s, ascending (default"
                            + " 25000,50000,100000,200000,400000,800000; ipfix, zmq: "
                            + IpfixBench.DEFAULT_RATES
                            + ")",
                    "  --step-seconds N        load time per step (default 8; ipfix, zmq: 5)",
                    "  --protocol P            v5, v9, ipfix or mix (default ipfix)",
                    "  --exporters N           simulated exporters (default 8)",
                    "  --replay-pool N         loadgen datagram pool per exporter (default 200; 0 ="
                            + " generate live)",
                    "  --bind ADDR[+]          loadgen source address; 127.0.0.2+ gives each"
                            + " exporter its own (default: all from 127.0.0.1)",
                    "  --time-limit-seconds N  bound of the whole stage (default 540)",
                    "  --bootstrap-servers B   Kafka (default: the services' broker, started if"
                            + " down)",
                    "  --systems LIST          ipfix: COLLECTOR:MESSAGE_BYTES,... (default "
                            + IpfixBench.DEFAULT_SYSTEMS
                            + ")",
                    "  --goflow2-rates LIST    ipfix: offered flows/s for goflow2 (default "
                            + IpfixBench.DEFAULT_GOFLOW2_RATES
                            + ")",
                    "  --collector-nice N      ipfix: run the collectors under nice -n N (default 0;"
                            + " negative needs root)",
                    "  --flows N               packets: flows in the pcap (default 20000); zmq:"
                            + " flows per throughput round (default 3000000)",
                    "  --results-dir DIR       default bench/results",
                    "");

    private BenchCommand() {}

    public static int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        CommandLine cl =
                CommandLine.parse(
                        List.of(args),
                        Set.of("peers"),
                        Set.of(
                                "rates",
                                "step-seconds",
                                "protocol",
                                "exporters",
                                "replay-pool",
                                "bind",
                                "time-limit-seconds",
                                "bootstrap-servers",
                                "database",
                                "flows",
                                "systems",
                                "goflow2-rates",
                                "collector-nice",
                                "results-dir"));
        if (cl.helpRequested() || cl.positional().isEmpty()) {
            out.print(HELP);
            return cl.helpRequested() ? 0 : 64;
        }
        String stage = cl.positional().get(0);
        FlowhouseHome home = FlowhouseHome.detect();
        Path results =
                Path.of(cl.value("results-dir", home.root().resolve("bench/results").toString()));
        String runId =
                ZonedDateTime.now(ZoneOffset.UTC)
                        .format(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT));
        return switch (stage) {
            case "agent" -> agent(cl, home, results, runId, out, err);
            case "decode" -> DecodeBench.run(cl, results, runId, out, err);
            case "e2e" -> e2e(cl, home, results, runId, out, err);
            case "packets" -> packets(cl, home, results, runId, out);
            case "ipfix" -> IpfixBench.run(cl, home.stateDir(), results, runId, out);
            case "zmq" -> ZmqBench.run(cl, results, runId, out);
            default -> {
                err.println("flowhouse bench: unknown stage " + stage + "\n" + HELP);
                yield 64;
            }
        };
    }

    private static int agent(
            CommandLine cl,
            FlowhouseHome home,
            Path results,
            String runId,
            PrintStream out,
            PrintStream err)
            throws Exception {
        long deadline =
                System.nanoTime()
                        + cl.intValue("time-limit-seconds", 540, 30, 3600) * 1_000_000_000L;
        List<Double> rates = new ArrayList<>();
        for (String r : cl.value("rates", "25000,50000,100000,200000,400000,800000").split(",")) {
            rates.add(Double.parseDouble(r.trim()));
        }
        DropFreeSearch.Settings settings =
                new DropFreeSearch.Settings(
                        cl.value("protocol", "ipfix"),
                        cl.intValue("exporters", 8, 1, 1000),
                        List.copyOf(rates),
                        cl.intValue("step-seconds", 8, 1, 120),
                        15_000,
                        cl.intValue("replay-pool", 200, 0, 100_000),
                        cl.value("bind", null));
        ServicesConfig services =
                ServicesConfig.resolve(
                        home.root(), home.stateDir(), System.getenv(), java.util.Map.of(), true);
        String bootstrap = cl.value("bootstrap-servers", services.kafkaBootstrap());
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
        try (KafkaTopics kafka = new KafkaTopics(bootstrap)) {
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
            collectors.add(new AgentCollector(ctx));
            if (cl.flag("peers")) {
                collectors.add(new Goflow2Collector(ctx, PeerTools.goflow2(out)));
                Path[] nf = PeerTools.nfdump(out);
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
                                + " \"replay_pool\": %d, \"rates\": %s, \"kafka\": \"%s\"}",
                        settings.protocol(),
                        settings.exporters(),
                        settings.stepSeconds(),
                        settings.replayPool(),
                        rates,
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
            CommandLine cl,
            FlowhouseHome home,
            Path results,
            String runId,
            PrintStream out,
            PrintStream err)
            throws Exception {
        long deadline =
                System.nanoTime()
                        + cl.intValue("time-limit-seconds", 540, 30, 3600) * 1_000_000_000L;
        List<Double> rates = new ArrayList<>();
        for (String r :
                cl.value("rates", "5000,10000,20000,40000,80000,160000,320000").split(",")) {
            rates.add(Double.parseDouble(r.trim()));
        }
        DropFreeSearch.Settings settings =
                new DropFreeSearch.Settings(
                        cl.value("protocol", "ipfix"),
                        cl.intValue("exporters", 8, 1, 1000),
                        List.copyOf(rates),
                        cl.intValue("step-seconds", 10, 1, 120),
                        60_000,
                        cl.intValue("replay-pool", 200, 0, 100_000),
                        cl.value("bind", null));
        ServicesConfig services =
                ServicesConfig.resolve(
                        home.root(), home.stateDir(), System.getenv(), java.util.Map.of(), true);
        int port = 4739;
        boolean wasUp = ProcStats.udpBound(port);
        io.flowhouse.launcher.FlowhouseMain main =
                new io.flowhouse.launcher.FlowhouseMain(home, System.getenv(), System.in);
        if (!wasUp) {
            // The job starts at the end of flows.raw: the search counts each step's rows only, and
            // a backlog left by an earlier run (offsets are committed on checkpoints, so a run
            // whose TaskManager failed leaves one) would be processed first and skew every step.
            // Job keys after -- go to the job, e.g. -- --job.checkpoint-interval "5 s".
            List<String> up = new ArrayList<>(List.of("up", "--", "--kafka.start", "latest"));
            up.addAll(cl.passThrough());
            out.println("bench e2e: ./flowhouse " + String.join(" ", up) + " ...");
            int code = main.run(up, out, err);
            if (code != 0) {
                err.println("bench e2e: ./flowhouse up failed (exit " + code + "); stopping again");
                main.run(List.of("down"), out, err);
                return code;
            }
        }
        List<SystemResult> systems = new ArrayList<>();
        try {
            ServicesManager manager = new ServicesManager(services);
            Map<String, Long> pids = new LinkedHashMap<>();
            findProcess("io.flowhouse.agent.CaptureAgentMain").ifPresent(p -> pids.put("agent", p));
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
                            services.clickhouseUrl(),
                            cl.value("database", "flowhouse"),
                            port,
                            pids,
                            9464);
            systems.add(search.run(pipeline, deadline));
        } finally {
            if (!wasUp) {
                out.println("bench e2e: ./flowhouse down ...");
                main.run(List.of("down"), out, err);
            }
        }
        BenchReport.print(out, "e2e", systems);
        String settingsJson =
                String.format(
                        Locale.ROOT,
                        "{\"protocol\": \"%s\", \"exporters\": %d, \"step_seconds\": %d,"
                                + " \"replay_pool\": %d, \"bind\": \"%s\", \"rates\": %s}",
                        settings.protocol(),
                        settings.exporters(),
                        settings.stepSeconds(),
                        settings.replayPool(),
                        settings.bind() == null ? "127.0.0.1" : settings.bind(),
                        rates);
        Path json = BenchReport.write(results, "e2e", runId, settingsJson, systems);
        out.println("bench: results in " + json + " (+ .csv, .png)");
        return systems.get(0).steps().isEmpty() ? 1 : 0;
    }

    /** {@code bench packets}: needs Kafka like {@code agent}; see {@link PacketsBench}. */
    private static int packets(
            CommandLine cl, FlowhouseHome home, Path results, String runId, PrintStream out)
            throws Exception {
        ServicesConfig services =
                ServicesConfig.resolve(
                        home.root(), home.stateDir(), System.getenv(), java.util.Map.of(), true);
        String bootstrap = cl.value("bootstrap-servers", services.kafkaBootstrap());
        ServicesManager manager = new ServicesManager(services);
        boolean startedKafka = false;
        if (!answers(bootstrap)) {
            out.println("bench: starting Kafka (" + services.kafkaBootstrap() + ") ...");
            manager.start(ServiceKind.KAFKA);
            startedKafka = true;
            bootstrap = services.kafkaBootstrap();
        }
        Path work = Files.createDirectories(home.stateDir().resolve("bench").resolve(runId));
        try (KafkaTopics kafka = new KafkaTopics(bootstrap)) {
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

    /** The pid of a running JVM whose command line names {@code mainClass} (read-only look). */
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
