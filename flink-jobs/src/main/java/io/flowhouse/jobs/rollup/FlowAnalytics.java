// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.ageing.AgeingSettings;
import io.flowhouse.jobs.ageing.PacketFlowTopology;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.tables.JobTables;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

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
            JobTables ch) {
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
                    .sinkTo(ch.flows())
                    .uid(UID_SINK_PACKET_FLOWS)
                    .name("clickhouse packet flows");
            all = all == null ? packetFlows : all.union(packetFlows);
        }
        if (rollup.enabled() && all != null) {
            RollupTopology.attach(all, rollup, r -> ch.rollup(r, rollup.ttlDays(r)));
        }
        return all;
    }

    /** Creates the packets topic when missing, so the source finds its partitions. */
    static void ensureTopic(String bootstrapServers, String topic, Properties clientProperties) {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        try (Admin admin = Admin.create(p)) {
            Set<String> existing = admin.listTopics().names().get(60, TimeUnit.SECONDS);
            if (existing.contains(topic)) {
                return;
            }
            try {
                admin.createTopics(List.of(new NewTopic(topic, Optional.empty(), Optional.empty())))
                        .all()
                        .get(60, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("cannot create topic " + topic, e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking topic " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot reach Kafka at " + bootstrapServers + " to check topic " + topic, e);
        }
    }
}
