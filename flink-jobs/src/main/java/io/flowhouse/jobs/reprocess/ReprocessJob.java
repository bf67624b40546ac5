// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.reprocess;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.config.Config;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.KafkaTopics;
import io.flowhouse.jobs.PipelineConnectors;
import io.flowhouse.jobs.PipelineSinks;
import io.flowhouse.jobs.PipelineSources;
import io.flowhouse.jobs.ageing.PacketFlowTopology;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.serde.RawDatagramDeserializationSchema;
import io.flowhouse.jobs.tables.JobTables;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * Batch reprocessing of an archived range: the streaming job's topology (decode, packet flow
 * ageing, rollups) in Flink's BATCH mode over a bounded range of {@code flows.raw} and/or {@code
 * packets.raw}, writing the same ClickHouse tables (or those of {@code --target-database}).
 *
 * <p>Re-running replaces rather than duplicates: raw rows carry deterministic row ids and rollup
 * buckets their full key, all in {@code ReplacingMergeTree}s, so the rows of a second run collapse
 * with the first ({@code FINAL} is exact at once). Rollups at a resolution that did not exist are
 * written to a new table {@code flows_<resolution>}. Dead letters are counted, not sent to the
 * rejected topic again, and learned templates are not archived again.
 *
 * <p>Entry points: {@link #main} ({@code flink run -c io.flowhouse.jobs.reprocess.ReprocessJob
 * flink-jobs-*-job.jar --from T1 --to T2 ...} on a cluster, or {@code ./flowhouse job reprocess} on
 * a MiniCluster), and {@link #build} for tests.
 */
public final class ReprocessJob {

    private ReprocessJob() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> environment = System.getenv();
        ReprocessArgs a = ReprocessArgs.parse(environment, System.out, args);
        if (a == null) {
            return;
        }
        StreamExecutionEnvironment env =
                StreamExecutionEnvironment.getExecutionEnvironment(configuration(a));
        PipelineSettings s = PipelineSettings.from(a.job(), environment);
        if (a.packets() && s.ageing().enabled()) {
            // So the packets source finds its partitions.
            KafkaTopics.ensure(s, List.of(s.ageing().topic()), null);
        }
        build(env, s, a, s.clickhouse().tables());
        env.execute(s.jobName() + "-reprocess");
    }

    /** Flink's configuration of the run: the Flink keys given, in BATCH mode, no generic types. */
    public static Configuration configuration(ReprocessArgs a) {
        Configuration conf = JobArgs.flinkConfiguration(a.job());
        conf.set(ExecutionOptions.RUNTIME_MODE, RuntimeExecutionMode.BATCH);
        conf.set(PipelineOptions.GENERIC_TYPES, false);
        return conf;
    }

    /**
     * Builds the streaming job's graph on {@code env} in BATCH mode, over the bounded range: no
     * dead letters to Kafka (counted only), no template archiving, no fan-out.
     */
    public static void build(
            StreamExecutionEnvironment env, PipelineSettings s, ReprocessArgs a, JobTables ch) {
        env.setRuntimeMode(RuntimeExecutionMode.BATCH);
        if (s.parallelism() > 0) {
            env.setParallelism(s.parallelism());
        }
        env.setMaxParallelism(s.maxParallelism());
        PipelineSources sources =
                new PipelineSources(
                        a.flows() ? rawSource(s, a) : null,
                        a.flows() ? PipelineConnectors.templatesSource(s) : null,
                        a.packets() && s.ageing().enabled()
                                ? PacketFlowTopology.kafkaSource(
                                        s.bootstrapServers(),
                                        s.ageing().topic(),
                                        s.groupId(),
                                        a.start(),
                                        a.stop(),
                                        s.kafkaClientProperties())
                                : null);
        PipelineSinks sinks =
                PipelineConnectors.sinks(s, ch)
                        .withRejected(new DiscardingSink<>())
                        .withTemplates(null)
                        .withFanOut(null, null);
        FlowPipelineJob.build(env, sources, sinks, s);
    }

    /** The raw topic over the range, offsets not committed. */
    private static KafkaSource<RawDatagram> rawSource(PipelineSettings s, ReprocessArgs a) {
        return KafkaSource.<RawDatagram>builder()
                .setBootstrapServers(s.bootstrapServers())
                .setTopics(s.rawTopic())
                .setGroupId(s.groupId())
                .setClientIdPrefix(s.groupId() + "-raw")
                .setStartingOffsets(a.start())
                .setBounded(a.stop())
                .setDeserializer(new RawDatagramDeserializationSchema())
                .setProperty("commit.offsets.on.checkpoint", "false")
                .setProperty("max.partition.fetch.bytes", Integer.toString(8 << 20))
                .setProperties(s.kafkaClientProperties())
                .build();
    }

    /** For tests: the settings of a configuration, with no environment variables. */
    public static PipelineSettings settings(Config conf) {
        return PipelineSettings.from(conf, Map.of());
    }
}
