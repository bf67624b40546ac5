// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamEdge;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.apache.flink.streaming.api.graph.StreamingJobGraphGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rollups' per-flow part (split, piece event time, bucket budget, combiners; with enrichment
 * the enriched split and the context pieces' operators) runs in the chain of each flow producer:
 * decode, the packet flow ageing and the sFlow sample ageing. No flow (a {@code FlowRecord} or an
 * {@code EnrichedFlow}) is serialized or crosses a channel on its way to the rollups; the rollups'
 * only network edges start at rollup operators (the shuffles into their windows and summaries).
 */
class RollupChainTest {

    @TempDir Path tmp;

    private StreamGraph productionGraph(boolean enrich, String... extra) throws Exception {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers", "127.0.0.1:1",
                                "--clickhouse.url", "http://127.0.0.1:1",
                                "--flowhouse.packets.enabled", "true"));
        if (enrich) {
            Path rules = Files.writeString(tmp.resolve("rules.yaml"), "exporters: []\n");
            args.addAll(List.of("--enrich.rules-file", rules.toString()));
        }
        args.addAll(List.of(extra));
        PipelineSettings s =
                PipelineSettings.from(
                        JobArgs.resolve(Map.of(), args.toArray(String[]::new)), Map.of());
        assertThat(s.enrich().enabled()).isEqualTo(enrich);
        assertThat(s.rollup().combineBuckets()).isPositive();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlowPipelineJob.configure(env, s);
        FlowPipelineJob.build(env, PipelineConnectors.sources(s), PipelineConnectors.sinks(s), s);
        return env.getStreamGraph();
    }

    private static boolean isRollup(StreamNode n) {
        String uid = n.getTransformationUID();
        return uid != null && uid.startsWith("rollup-");
    }

    /**
     * Every edge from an operator outside the rollups (a producer of flows) into the rollups is
     * chained; returns how many there are.
     */
    private static int flowsIntoTheRollupsAreChained(StreamGraph g) {
        int edges = 0;
        for (StreamNode n : g.getStreamNodes()) {
            if (!isRollup(n)) {
                continue;
            }
            for (StreamEdge e : n.getInEdges()) {
                StreamNode from = g.getStreamNode(e.getSourceId());
                if (isRollup(from)) {
                    continue;
                }
                edges++;
                assertThat(StreamingJobGraphGenerator.isChainable(e, g))
                        .as(from.getOperatorName() + " -> " + n.getOperatorName() + " chained")
                        .isTrue();
            }
        }
        return edges;
    }

    /** The one job vertex whose name contains {@code head} (its chain's operators, in order). */
    private static String vertex(JobGraph g, String head) {
        String found = null;
        for (JobVertex v : g.getVertices()) {
            if (v.getName().contains(head)) {
                assertThat(found).as("one vertex with " + head).isNull();
                found = v.getName();
            }
        }
        assertThat(found).as("a vertex with " + head).isNotNull();
        return found;
    }

    @Test
    void decodeAndPacketFlowsSplitAndCombineInTheirOwnChains() throws Exception {
        StreamGraph g = productionGraph(false);
        // decode -> split 1m, packet flow ageing -> split 1m (packets).
        assertThat(flowsIntoTheRollupsAreChained(g)).isEqualTo(2);
        JobGraph jobs = g.getJobGraph();
        assertThat(vertex(jobs, "decode"))
                .contains(
                        "split 1m",
                        "rollup event time 1m",
                        "bucket budget 1m",
                        "combine 1m",
                        "bucket pieces 1m",
                        "talker pieces 1m")
                .doesNotContain("(packets)")
                .doesNotContain("split 1h");
        assertThat(vertex(jobs, "packet flow ageing"))
                .contains("split 1m (packets)", "combine 1m (packets)")
                .doesNotContain("split 1m ->");
    }

    @Test
    void enrichedFlowsSplitAndCombineInDecodesChain() throws Exception {
        StreamGraph g = productionGraph(true);
        // decode -> enriched AS; packet flow ageing -> packet flows (no context).
        assertThat(flowsIntoTheRollupsAreChained(g)).isEqualTo(2);
        JobGraph jobs = g.getJobGraph();
        assertThat(vertex(jobs, "decode"))
                .contains(
                        "clickhouse flows (enriched)",
                        "enriched AS, context pieces",
                        "split 1m",
                        "combine 1m",
                        "rollup context event time 1m",
                        "combine context 1m",
                        "context bucket budget 1m")
                .doesNotContain("(packets)")
                .doesNotContain("split 1h")
                .doesNotContain("context bucket budget 1h");
        assertThat(vertex(jobs, "packet flow ageing"))
                .contains(
                        "packet flows (no context)",
                        "enriched AS, context pieces (packets)",
                        "split 1m (packets)",
                        "combine 1m (packets)",
                        "combine context 1m (packets)");
    }

    private static Set<String> uids(StreamGraph g) {
        Set<String> uids = new HashSet<>();
        for (StreamNode n : g.getStreamNodes()) {
            uids.add(n.getTransformationUID());
        }
        return uids;
    }

    /**
     * The decoded flows' operators keep the uids they had when every input went through one split
     * (a savepoint names them; they hold no state, but a uid that went away would need {@code
     * --allow-non-restored} for nothing); the other inputs' carry a suffix.
     */
    @Test
    void theDecodedFlowsKeepTheUidsOfASingleInput() throws Exception {
        List<String> plain =
                List.of(
                        "rollup-split-1m",
                        "rollup-watermarks-1m",
                        "rollup-bucket-budget-1m",
                        "rollup-combine-1m",
                        "rollup-bucket-pieces-1m",
                        "rollup-address-pieces-1m");
        List<String> context =
                List.of(
                        "rollup-enriched-as",
                        "rollup-packet-flows-context",
                        "rollup-context-watermarks-1m",
                        "rollup-context-combine-1m",
                        "rollup-context-bucket-budget-1m");
        Set<String> off = uids(productionGraph(false));
        assertThat(off).containsAll(plain);
        for (String u : plain) {
            assertThat(off).contains(u + "-" + FlowPipelineJob.ROLLUP_INPUT_PACKETS);
        }
        Set<String> on = uids(productionGraph(true));
        assertThat(on).containsAll(plain).containsAll(context);
        assertThat(on).contains("rollup-enriched-as-" + FlowPipelineJob.ROLLUP_INPUT_PACKETS);
    }

    @Test
    void agedSflowSamplesSplitInTheAgeingsChain() throws Exception {
        for (boolean enrich : new boolean[] {false, true}) {
            StreamGraph g = productionGraph(enrich, "--flowhouse.packets.sflow-samples", "true");
            // Decode (its flows but the samples), the sFlow sample ageing, the packet flow ageing.
            assertThat(flowsIntoTheRollupsAreChained(g)).as("enrich " + enrich).isEqualTo(3);
            JobGraph jobs = g.getJobGraph();
            assertThat(vertex(jobs, "decode")).contains("split 1m", "combine 1m");
            assertThat(vertex(jobs, "sflow sample ageing"))
                    .contains("split 1m (sflow-aged)", "combine 1m (sflow-aged)");
        }
    }
}
