// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.PipelineSinks;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;

/** Wires the production topology against the test's broker and ClickHouse. */
final class PipelineHarness {

    private PipelineHarness() {}

    /** The MiniCluster the pipeline ITCases run on: one TaskManager of two slots. */
    static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(
                new MiniClusterResourceConfiguration.Builder()
                        .setNumberTaskManagers(1)
                        .setNumberSlotsPerTaskManager(2)
                        .build());
    }

    /** The test's settings; with a null ClickHouse, the default URL (sinks replaced, no server). */
    static PipelineSettings settings(
            String bootstrap, LocalClickHouse ch, String suffix, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers",
                                bootstrap,
                                "--kafka.topic.raw",
                                "flows.raw." + suffix,
                                "--kafka.topic.rejected",
                                "flows.rejected." + suffix,
                                "--kafka.topic.templates",
                                "flows.templates." + suffix,
                                "--kafka.group-id",
                                "itcase-" + suffix,
                                "--kafka.start",
                                "earliest",
                                "--job.parallelism",
                                "2",
                                "--job.checkpoint-interval",
                                "1 s"));
        if (ch != null) {
            args.addAll(
                    List.of(
                            "--clickhouse.url",
                            ch.httpUrl(),
                            "--clickhouse.database",
                            "flowhouse_" + suffix,
                            "--clickhouse.user",
                            ch.user(),
                            "--clickhouse.batch-size",
                            "5000",
                            "--clickhouse.flush-interval",
                            "500 ms"));
        }
        args.addAll(List.of(extra));
        return PipelineSettings.from(
                JobArgs.resolve(Map.of(), args.toArray(String[]::new)), Map.of());
    }

    /**
     * Restarts are bounded in tests: 40 attempts 2 s apart (enough to ride out a 30 s ClickHouse
     * outage, during which a restarted writer cannot open), then the job and the test fail.
     */
    static StreamExecutionEnvironment environment(PipelineSettings s) {
        Configuration c = new Configuration();
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 40);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofSeconds(2));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        FlowPipelineJob.configure(env, s);
        return env;
    }

    /** The job's tables on the test server (its password set directly). */
    static JobTables tables(PipelineSettings s, LocalClickHouse ch) {
        return s.clickhouse().tables().withPassword(ch.password());
    }

    /** Every production sink, ClickHouse on the test server. */
    static PipelineSinks sinks(PipelineSettings s, LocalClickHouse ch) {
        return PipelineConnectors.sinks(s, tables(s, ch));
    }

    /**
     * Every production sink but ClickHouse's, whose outputs are dropped (no server in the test).
     */
    static PipelineSinks withoutClickHouse(PipelineSettings s) {
        return PipelineConnectors.sinks(s)
                .withFlows(new DiscardingSink<>())
                .withStats(null)
                .withInterfaceCounters(null)
                .withPacketFlows(new DiscardingSink<>())
                .withRollups(r -> new DiscardingSink<>());
    }

    /** The production graph with these sinks (topics created first). */
    static StreamExecutionEnvironment environment(PipelineSettings s, PipelineSinks sinks)
            throws Exception {
        StreamExecutionEnvironment env = environment(s);
        KafkaTopics.ensure(s);
        FlowPipelineJob.build(env, PipelineConnectors.sources(s), sinks, s);
        return env;
    }

    /** The production graph, ClickHouse on the test server. */
    static StreamExecutionEnvironment environment(PipelineSettings s, LocalClickHouse ch)
            throws Exception {
        return environment(s, sinks(s, ch));
    }
}
