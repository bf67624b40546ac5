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
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With enrichment on, decode enriches each flow itself: decode, the enriched flows and their
 * ClickHouse sink are one chain (one job vertex), so no flow is serialized or shipped for its
 * context, and there is no broadcast input.
 */
class EnrichChainTest {

    @TempDir Path tmp;

    private JobGraph productionGraph(String... extra) throws Exception {
        return streamGraph(extra).getJobGraph();
    }

    private StreamGraph streamGraph(String... extra) throws Exception {
        Path rules = Files.writeString(tmp.resolve("rules.yaml"), "exporters: []\n");
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--kafka.bootstrap-servers", "127.0.0.1:1",
                                "--clickhouse.url", "http://127.0.0.1:1",
                                "--enrich.rules-file", rules.toString()));
        args.addAll(List.of(extra));
        PipelineSettings s =
                PipelineSettings.from(
                        JobArgs.resolve(Map.of(), args.toArray(String[]::new)), Map.of());
        assertThat(s.enrich().enabled()).isTrue();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlowPipelineJob.configure(env, s);
        FlowPipelineJob.build(env, PipelineConnectors.sources(s), PipelineConnectors.sinks(s), s);
        return env.getStreamGraph();
    }

    private static JobVertex decodeVertex(JobGraph g) {
        JobVertex decode = null;
        for (JobVertex v : g.getVertices()) {
            if (v.getName().contains("decode")) {
                assertThat(decode).as("one vertex with decode").isNull();
                decode = v;
            }
        }
        assertThat(decode).isNotNull();
        return decode;
    }

    @Test
    void decodeEnrichesInItsChainUpToTheSink() throws Exception {
        JobGraph g = productionGraph();
        JobVertex decode = decodeVertex(g);
        assertThat(decode.getName()).contains("clickhouse flows (enriched)");
        for (JobVertex v : g.getVertices()) {
            assertThat(v.getName()).as("no enrich stage of its own").doesNotContain("enrich ");
            assertThat(v.getName()).doesNotContain("exporter names -> enrich");
        }
        // The chain's inputs: the raw datagrams and the template archive, nothing broadcast.
        assertThat(decode.getInputs()).hasSizeLessThanOrEqualTo(2);
    }

    /**
     * With the packets path on, the rollups take the enriched flows and the packet flows each in
     * its own chain (decode's, the packet ageing's; {@link RollupChainTest}): one operator per
     * input takes each enriched flow once for the plain rollups and the context pieces, not one
     * consumer (and one copy of each flow) per rollup. Only the finest resolution splits flows; the
     * coarser ones, context included, are derived from its windows' deltas.
     */
    @Test
    void theRollupsTakeEachEnrichedFlowOnce() throws Exception {
        JobGraph g = productionGraph("--flowhouse.packets.enabled", "true");
        int splits = 0;
        for (JobVertex v : g.getVertices()) {
            assertThat(v.getName()).doesNotContain("split context");
            if (v.getName().contains("enriched AS, context pieces")) {
                splits++;
                assertThat(v.getName())
                        .contains("split 1m")
                        .contains("context bucket budget 1m")
                        .doesNotContain("split 1h")
                        .doesNotContain("context bucket budget 1h");
            }
        }
        assertThat(splits).as("decode's and the packet flows'").isEqualTo(2);
        assertThat(decodeVertex(g).getName()).contains("enriched AS, context pieces");
    }

    /**
     * With sFlow samples aged into flows, decode's enriched flows keep all but the samples, and the
     * aged samples are enriched after the ageing; every operator keeps its own uid.
     */
    @Test
    void agedSflowSamplesAreEnrichedAfterTheAgeing() throws Exception {
        StreamGraph graph = streamGraph("--flowhouse.packets.sflow-samples", "true");
        Set<String> uids = new HashSet<>();
        for (StreamNode node : graph.getStreamNodes()) {
            String uid = node.getTransformationUID();
            assertThat(uid).as(node.getOperatorName()).isNotNull();
            assertThat(uids.add(uid)).as("uid " + uid + " used once").isTrue();
        }
        assertThat(uids)
                .contains(FlowPipelineJob.UID_ENRICH, FlowPipelineJob.UID_ENRICH_NOT_SAMPLES);
        JobVertex decode = decodeVertex(graph.getJobGraph());
        assertThat(decode.getName()).contains("enriched (not sflow samples)");
    }
}
