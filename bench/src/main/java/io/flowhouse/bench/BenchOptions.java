// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * The options of {@code ./flowhouse bench}. Every stage takes the ones it knows; an option left out
 * takes the stage's own default (the e2e ladder starts lower than the agent's, ipfix and zmq use
 * shorter steps), so the fields stay null until given.
 */
final class BenchOptions {

    @Option(
            names = "--peers",
            description =
                    "agent: also run goflow2 (-> Kafka) and nfcapd (-> files) on the same load"
                            + " (installed when missing)")
    boolean peers;

    @Option(
            names = "--rates",
            paramLabel = "LIST",
            description =
                    "offered flows/s, ascending (agent: 25000,...,800000; e2e: 5000,...,320000;"
                            + " ipfix, zmq: "
                            + IpfixBench.DEFAULT_RATES
                            + ")")
    String rates;

    @Option(
            names = "--step-seconds",
            paramLabel = "N",
            description = "load time per step (agent 8, e2e 10, ipfix and zmq 5)")
    Integer stepSeconds;

    @Option(
            names = "--warm-up-seconds",
            paramLabel = "N",
            description =
                    "e2e and agent: unmeasured load before each system's first step, in three"
                            + " parts ramping up to --warm-up-rate (default "
                            + E2E_WARM_UP_SECONDS
                            + " for e2e, "
                            + AGENT_WARM_UP_SECONDS
                            + " for agent; the other stages: 3 s at half the first rate)")
    Integer warmUpSeconds;

    @Option(
            names = "--warm-up-rate",
            paramLabel = "FLOWS",
            description =
                    "e2e and agent: the warm-up's last part, flows/s (default: the first rate;"
                            + " for e2e at most "
                            + E2E_WARM_UP_TOP
                            + ")")
    Integer warmUpRate;

    @Option(
            names = "--protocol",
            paramLabel = "P",
            description = "v5, v9, ipfix, sflow or mix (default ipfix)")
    String protocol;

    @Option(
            names = "--exporters",
            paramLabel = "N",
            description = "simulated exporters (default 8)")
    Integer exporters;

    @Option(
            names = "--replay-pool",
            paramLabel = "N",
            description = "loadgen datagram pool per exporter (default 200; 0 = generate live)")
    Integer replayPool;

    @Option(
            names = "--max-datagram",
            paramLabel = "BYTES",
            description =
                    "loadgen's largest datagram (default: loadgen's, about a 1,500-byte MTU);"
                            + " sFlow then carries as many samples as fit")
    Integer maxDatagram;

    @Option(
            names = "--agent-record-datagrams",
            paramLabel = "N",
            description =
                    "agent stage: the agent's kafka.record-max-datagrams, datagrams of one"
                            + " exporter per Kafka record (default: the agent's own, 64; 1 writes"
                            + " a record per datagram)")
    Integer agentRecordDatagrams;

    @Option(
            names = "--bind",
            paramLabel = "ADDR[+]",
            description =
                    "loadgen source address; 127.0.0.2+ gives each exporter its own (default:"
                            + " all from 127.0.0.1)")
    String bind;

    @Option(
            names = "--time-limit-seconds",
            paramLabel = "N",
            description = "bound of the whole stage (default 540)")
    Integer timeLimitSeconds;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "B",
            description = "Kafka (default: the services' broker, started if down)")
    String bootstrapServers;

    @Option(
            names = "--database",
            paramLabel = "DB",
            description =
                    "e2e: the ClickHouse database the job writes (default: flowhouse for a pipeline"
                            + " that is up; a pipeline the bench starts writes flowhouse_bench,"
                            + " emptied before each setting)")
    String database;

    @Option(
            names = "--flows",
            paramLabel = "N",
            description =
                    "packets: flows in the pcap (default 20000); zmq: flows per throughput"
                            + " round (default 3000000)")
    Long flows;

    @Option(
            names = "--systems",
            paramLabel = "LIST",
            description =
                    "ipfix: COLLECTOR:MESSAGE_BYTES,... (default "
                            + IpfixBench.DEFAULT_SYSTEMS
                            + ")")
    String systems;

    @Option(
            names = "--goflow2-rates",
            paramLabel = "LIST",
            description =
                    "ipfix: offered flows/s for goflow2 (default "
                            + IpfixBench.DEFAULT_GOFLOW2_RATES
                            + ")")
    String goflow2Rates;

    @Option(
            names = "--collector-nice",
            paramLabel = "N",
            description =
                    "ipfix: run the collectors under nice -n N (default 0; negative needs root)")
    Integer collectorNice;

    @Option(
            names = "--topic-only",
            description =
                    "kafka-out: the job writes the decoded-flows topic only (job keys"
                            + " clickhouse.enabled=false, rollup.enabled=false); default: also"
                            + " ClickHouse and the rollups, as in production")
    boolean topicOnly;

    @Option(
            names = "--max-lag",
            paramLabel = "SECONDS",
            description =
                    "e2e: a step is drop-free only if every row it sent is visible in ClickHouse"
                            + " within this many seconds of the end of its load (default "
                            + DEFAULT_MAX_LAG_SECONDS
                            + "; accepts 5, 5s, 500ms)")
    String maxLag;

    @Option(
            names = "--enrich",
            paramLabel = "LIST",
            description =
                    "e2e: off, on, or both in the order given (on,off): one ./flowhouse up per"
                            + " value, the same ladder each; on adds the country and ASN databases"
                            + " of ~/.cache/flowhouse/geo (default off)")
    String enrich;

    @Option(names = "--results-dir", paramLabel = "DIR", description = "default bench/results")
    Path resultsDir;

    /** The options as parsed from {@code args} alone (no stage): for tests that run one stage. */
    static BenchOptions parse(String... args) {
        BenchOptions options = new BenchOptions();
        new CommandLine(options).parseArgs(args);
        return options;
    }

    /**
     * The e2e lag bound. The job's ClickHouse sink sends a batch at least every 5 s
     * (clickhouse.flush-interval), so a job that keeps up shows its last row up to about 6 s after
     * the load; one that buffers a 30 s step at a third of the rate shows it about 20 s after.
     */
    static final double DEFAULT_MAX_LAG_SECONDS = 10;

    /** A mistake in the options: reported as a usage error. */
    static final class UsageError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UsageError(String message) {
            super(message);
        }
    }

    List<Double> rates(String fallback) {
        return parseRates("--rates", rates == null ? fallback : rates);
    }

    List<Double> goflow2Rates(String fallback) {
        return parseRates("--goflow2-rates", goflow2Rates == null ? fallback : goflow2Rates);
    }

    int stepSeconds(int fallback) {
        return range("--step-seconds", stepSeconds, fallback, 1, 120);
    }

    int timeLimitSeconds() {
        return range("--time-limit-seconds", timeLimitSeconds, 540, 30, 3600);
    }

    String protocol() {
        return protocol == null ? "ipfix" : protocol;
    }

    int exporters() {
        return range("--exporters", exporters, 8, 1, 1000);
    }

    int replayPool() {
        return range("--replay-pool", replayPool, 200, 0, 100_000);
    }

    int agentRecordDatagrams() {
        return range(
                "--agent-record-datagrams",
                agentRecordDatagrams,
                io.flowhouse.agent.config.AgentKeys.KAFKA_RECORD_MAX_DATAGRAMS.defaultValue(),
                1,
                4096);
    }

    /** 0: loadgen's default. */
    int maxDatagram() {
        return maxDatagram == null ? 0 : range("--max-datagram", maxDatagram, 0, 512, 65_507);
    }

    double maxLagSeconds() {
        if (maxLag == null) {
            return DEFAULT_MAX_LAG_SECONDS;
        }
        String v = maxLag.trim();
        double scale = 1;
        if (v.endsWith("ms")) {
            v = v.substring(0, v.length() - 2);
            scale = 0.001;
        } else if (v.endsWith("s")) {
            v = v.substring(0, v.length() - 1);
        }
        double seconds;
        try {
            seconds = Double.parseDouble(v.trim()) * scale;
        } catch (NumberFormatException e) {
            throw new UsageError("--max-lag: '" + maxLag + "' is not a duration (5, 5s, 500ms)");
        }
        if (!(seconds >= 0 && seconds <= 600)) {
            throw new UsageError("--max-lag: " + maxLag + " (expected: 0..600 s)");
        }
        return seconds;
    }

    /** The e2e enrichment settings to run, in order: each "off" or "on", no repeats. */
    List<Boolean> enrich() {
        List<Boolean> out = new ArrayList<>();
        for (String e : (enrich == null ? "off" : enrich).split(",")) {
            Boolean on =
                    switch (e.trim()) {
                        case "on" -> Boolean.TRUE;
                        case "off" -> Boolean.FALSE;
                        default ->
                                throw new UsageError(
                                        "--enrich: '" + e.trim() + "' (expected: on, off, on,off)");
                    };
            if (out.contains(on)) {
                throw new UsageError("--enrich: '" + e.trim() + "' given twice");
            }
            out.add(on);
        }
        return List.copyOf(out);
    }

    String bootstrapServers(String fallback) {
        return bootstrapServers == null ? fallback : bootstrapServers;
    }

    String database() {
        return database == null ? "flowhouse" : database;
    }

    long flows(long fallback, long min, long max) {
        long value = flows == null ? fallback : flows;
        if (value < min || value > max) {
            throw new UsageError("--flows: " + value + " (expected: " + min + ".." + max + ")");
        }
        return value;
    }

    String systems(String fallback) {
        return systems == null ? fallback : systems;
    }

    /** The e2e warm-up's default length: the enriched job is not warm after 3 s. */
    static final int E2E_WARM_UP_SECONDS = 45;

    /** The e2e warm-up's default top rate (flows/s), below both jobs' quiet drop-free rates. */
    static final int E2E_WARM_UP_TOP = 100_000;

    /** The e2e search halves the gap above the last clean rate up to this many times ... */
    static final int E2E_REFINE_STEPS = 4;

    /** ... until it is at most this fraction of the clean rate (90 % told from 86 %). */
    static final double E2E_REFINE_GAP = 0.03;

    /**
     * The e2e search's warm-up and ladder: every system (enrichment off and on) gets the same
     * warm-up, three parts ramping up to the warm-up rate, each drained; after the first unclean
     * rung the gap is bisected ({@link RateLadder#refined}).
     */
    DropFreeSearch.Settings e2e(DropFreeSearch.Settings s) {
        return rampedAndRefined(
                s, E2E_WARM_UP_SECONDS, Math.min(E2E_WARM_UP_TOP, s.rates().get(0)));
    }

    /**
     * The agent stage's default warm-up: a fresh agent JVM spent about a third of its CPU in the
     * JIT over its first 8 s steps (JFR, 2026-11-26), so 3 s measured it cold.
     */
    static final int AGENT_WARM_UP_SECONDS = 20;

    /**
     * The agent stage's warm-up and ladder: every system (the agent, goflow2) gets the same
     * warm-up, three parts ramping up to the first rate, each drained (nfcapd and sfcapd start per
     * step and get none); after the first unclean rung the gap is bisected as for e2e.
     */
    DropFreeSearch.Settings agent(DropFreeSearch.Settings s) {
        return rampedAndRefined(s, AGENT_WARM_UP_SECONDS, s.rates().get(0));
    }

    /**
     * {@code s} with a warm-up of three parts ramping up to {@code --warm-up-rate} (else {@code
     * top}) over {@code --warm-up-seconds} (else {@code seconds}), and the refined ladder.
     */
    private DropFreeSearch.Settings rampedAndRefined(
            DropFreeSearch.Settings s, int seconds, double top) {
        int length = range("--warm-up-seconds", warmUpSeconds, seconds, 3, 600);
        double last =
                warmUpRate != null ? range("--warm-up-rate", warmUpRate, 0, 100, 10_000_000) : top;
        return s.with(
                DropFreeSearch.WarmUp.ramp(last, length, 3), E2E_REFINE_STEPS, E2E_REFINE_GAP);
    }

    int collectorNice() {
        return range("--collector-nice", collectorNice, 0, -20, 19);
    }

    private static int range(String name, Integer value, int fallback, int min, int max) {
        int v = value == null ? fallback : value;
        if (v < min || v > max) {
            throw new UsageError(name + ": " + v + " (expected: " + min + ".." + max + ")");
        }
        return v;
    }

    private static List<Double> parseRates(String name, String list) {
        List<Double> out = new ArrayList<>();
        for (String r : list.split(",")) {
            try {
                out.add(Double.parseDouble(r.trim()));
            } catch (NumberFormatException e) {
                throw new UsageError(name + ": '" + r.trim() + "' is not a number");
            }
        }
        return List.copyOf(out);
    }
}
