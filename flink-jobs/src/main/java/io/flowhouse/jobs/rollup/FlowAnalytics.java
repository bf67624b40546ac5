// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.ageing.AgeingSettings;
import io.flowhouse.jobs.ageing.PacketFlowTopology;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.kafka.TopicAdmin;
import io.flowhouse.sinks.clickhouse.ClickHouseSink;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.sinks.clickhouse.rollup.RollupSink;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * What the pipeline adds to the decoded flows (issue 6): packet flows aged from {@code
 * packets.raw}, written to the same {@code flows} table, and the rollups of both. Used by the
 * streaming job ({@code FlowPipelineJob}) and by batch reprocessing ({@code ReprocessJob}) alike,
 * so both run the same topology.
 */
public final class FlowAnalytics {

    public static final String UID_SINK_PACKET_FLOWS = "sink-clickhouse-packet-flows";

    private FlowAnalytics() {}

    /**
     * Attaches the packets path (when enabled and {@code packetsStart} is not null) and the rollups
     * (when enabled) to the decoded flows.
     *
     * @param decoded decoded NetFlow/IPFIX flows (already written to ClickHouse), or null when only
     *     packets are processed
     * @param packetsStart where to start reading the packets topic; null leaves packets out
     * @param packetsStop where to stop (bounded), or null (streaming)
     * @param ch where flows and rollups go
     * @return all flows: decoded and aged from packets
     */
    public static DataStream<FlowRecord> attach(
            StreamExecutionEnvironment env,
            Configuration conf,
            PipelineSettings s,
            DataStream<FlowRecord> decoded,
            OffsetsInitializer packetsStart,
            OffsetsInitializer packetsStop,
            ClickHouseSinkOptions ch) {
        AgeingSettings ageing = AgeingSettings.from(conf);
        RollupSettings rollup = RollupSettings.from(conf);
        DataStream<FlowRecord> all = decoded;
        if (ageing.enabled() && packetsStart != null) {
            ensureTopic(s.bootstrapServers(), ageing.topic(), s.kafkaClientProperties());
            DataStream<FlowRecord> packetFlows =
                    PacketFlowTopology.attach(
                            env,
                            PacketFlowTopology.kafkaSource(
                                    s.bootstrapServers(),
                                    ageing.topic(),
                                    s.groupId(),
                                    packetsStart,
                                    packetsStop,
                                    s.kafkaClientProperties()),
                            ageing);
            packetFlows
                    .sinkTo(ClickHouseSink.forFlows(ch))
                    .uid(UID_SINK_PACKET_FLOWS)
                    .name("clickhouse packet flows");
            all = all == null ? packetFlows : all.union(packetFlows);
        }
        if (rollup.enabled() && all != null) {
            RollupTopology.attach(all, rollup, r -> new RollupSink(ch, r, rollup.ttlDays(r)));
        }
        return all;
    }

    /** Creates the packets topic when missing, so the source finds its partitions. */
    static void ensureTopic(String bootstrapServers, String topic, Properties clientProperties) {
        try (TopicAdmin admin = TopicAdmin.connect(bootstrapServers, clientProperties)) {
            admin.createMissing(List.of(TopicAdmin.topic(topic, null, Map.of())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking topic " + topic, e);
        }
    }
}
