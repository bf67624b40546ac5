// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/**
 * A savepoint restores into the operators by their uids: every operator of the production graph
 * (decode, packets, rollups and every sink) has its own explicit uid, and the default maximum
 * parallelism leaves room to rescale to 4 and beyond.
 */
class OperatorUidsTest {

    private static StreamGraph productionGraph(String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers", "127.0.0.1:1",
                                "--clickhouse.url", "http://127.0.0.1:1",
                                "--flowhouse.packets.enabled", "true"));
        args.addAll(List.of(extra));
        PipelineSettings s =
                PipelineSettings.from(
                        JobArgs.resolve(Map.of(), args.toArray(String[]::new)), Map.of());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlowPipelineJob.configure(env, s);
        FlowPipelineJob.build(env, PipelineConnectors.sources(s), PipelineConnectors.sinks(s), s);
        return env.getStreamGraph();
    }

    @Test
    void everyOperatorHasItsOwnUid() {
        StreamGraph graph = productionGraph();
        Set<String> uids = new HashSet<>();
        List<String> without = new ArrayList<>();
        for (StreamNode node : graph.getStreamNodes()) {
            String uid = node.getTransformationUID();
            if (uid == null) {
                without.add(node.getOperatorName());
            } else {
                assertThat(uids.add(uid)).as("uid " + uid + " used once").isTrue();
            }
        }
        assertThat(without).as("operators without a uid").isEmpty();
        // Sources, decode, packets, rollups and the sinks' writers and committers.
        assertThat(uids).hasSizeGreaterThan(20);
        assertThat(uids).contains(FlowPipelineJob.UID_DECODE, FlowPipelineJob.UID_SOURCE_RAW);
    }

    @Test
    void defaultMaximumParallelismAllowsRescalingToFour() {
        PipelineSettings s =
                PipelineSettings.from(JobArgs.resolve(Map.of(), new String[0]), Map.of());
        assertThat(s.maxParallelism()).isGreaterThanOrEqualTo(4);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlowPipelineJob.configure(env, s);
        assertThat(env.getMaxParallelism()).isEqualTo(s.maxParallelism());
    }
}
