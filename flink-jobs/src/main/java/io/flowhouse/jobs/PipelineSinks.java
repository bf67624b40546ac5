// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.sflow.InterfaceCounters;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.rollup.RollupTopology;
import io.flowhouse.jobs.stats.ExporterStats;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;

/**
 * Where the pipeline's outputs go. Production wires ClickHouse, Kafka and the configured fan-out
 * ({@link PipelineConnectors#sinks}); tests replace what they observe. Every sink but {@code
 * rejected} may be null: that output is not written (and the exporter statistics are not computed;
 * without {@code rollups} the rollups are not computed). A topic-only deployment has no ClickHouse
 * sink at all. Built whole once ({@link PipelineConnectors#sinks}); a variant is a copy with one
 * component changed ({@code with*}), so no second constructor lists the components again.
 *
 * @param flows decoded NetFlow/IPFIX flows ({@code flows})
 * @param stats per-exporter statistics ({@code exporter_stats})
 * @param rejected dead letters ({@code flows.rejected})
 * @param templates learned templates ({@code flows.templates})
 * @param packetFlows flows aged from packets ({@code flows} too)
 * @param rollups the rollup rows of each resolution ({@code flows_<resolution>})
 * @param zmq the ntopng ZMQ publisher of the decoded flows
 * @param ipfix the IPFIX re-export of the decoded flows
 * @param flowsTopic the decoded-flows Kafka topic
 * @param interfaceCounters sFlow counter samples' interface counters ({@code interface_counters})
 * @param enrichedFlows decoded flows with their context, instead of {@code flows} (null: off)
 * @param enrichedFlowsTopic the decoded-flows topic with each flow's context, instead of {@code
 *     flowsTopic} (null: off)
 */
public record PipelineSinks(
        Sink<FlowRecord> flows,
        Sink<ExporterStats> stats,
        Sink<RejectedDatagram> rejected,
        Sink<ArchivedTemplate> templates,
        Sink<FlowRecord> packetFlows,
        RollupTopology.SinkFactory rollups,
        Sink<FlowRecord> zmq,
        Sink<FlowRecord> ipfix,
        Sink<FlowRecord> flowsTopic,
        Sink<InterfaceCounters> interfaceCounters,
        Sink<EnrichedFlow> enrichedFlows,
        Sink<EnrichedFlow> enrichedFlowsTopic) {

    public PipelineSinks {
        Objects.requireNonNull(rejected, "rejected");
    }

    public PipelineSinks withFlows(Sink<FlowRecord> s) {
        return with(c -> c.flows = s);
    }

    public PipelineSinks withStats(Sink<ExporterStats> s) {
        return with(c -> c.stats = s);
    }

    public PipelineSinks withRejected(Sink<RejectedDatagram> s) {
        return with(c -> c.rejected = s);
    }

    public PipelineSinks withTemplates(Sink<ArchivedTemplate> s) {
        return with(c -> c.templates = s);
    }

    public PipelineSinks withPacketFlows(Sink<FlowRecord> s) {
        return with(c -> c.packetFlows = s);
    }

    public PipelineSinks withRollups(RollupTopology.SinkFactory s) {
        return with(c -> c.rollups = s);
    }

    /** With these fan-out sinks (null: off). */
    public PipelineSinks withFanOut(Sink<FlowRecord> zmqSink, Sink<FlowRecord> ipfixSink) {
        return with(
                c -> {
                    c.zmq = zmqSink;
                    c.ipfix = ipfixSink;
                });
    }

    /** With this decoded-flows topic sink (null: off). */
    public PipelineSinks withFlowsTopic(Sink<FlowRecord> s) {
        return with(c -> c.flowsTopic = s);
    }

    /** With this interface-counters sink (null: sFlow counter samples are not written). */
    public PipelineSinks withInterfaceCounters(Sink<InterfaceCounters> s) {
        return with(c -> c.interfaceCounters = s);
    }

    /**
     * Decoded flows go through the enrich stage into {@code s} instead of into {@code flows} (null:
     * as decoded, into {@code flows}).
     */
    public PipelineSinks withEnrichedFlows(Sink<EnrichedFlow> s) {
        return with(c -> c.enrichedFlows = s);
    }

    /**
     * The decoded-flows topic takes each flow with its context, through the enrich stage, into
     * {@code s} (null: off; {@code flowsTopic} takes flows as decoded).
     */
    public PipelineSinks withEnrichedFlowsTopic(Sink<EnrichedFlow> s) {
        return with(c -> c.enrichedFlowsTopic = s);
    }

    /** Whether the enrich stage runs: a sink takes its output. */
    public boolean enriches() {
        return enrichedFlows != null || enrichedFlowsTopic != null;
    }

    /** How many fan-out sinks are on. */
    public int fanOutCount() {
        return (zmq == null ? 0 : 1) + (ipfix == null ? 0 : 1);
    }

    /** A copy with {@code change} applied: one place that lists every component. */
    private PipelineSinks with(java.util.function.Consumer<Copy> change) {
        Copy c = new Copy(this);
        change.accept(c);
        return new PipelineSinks(
                c.flows,
                c.stats,
                c.rejected,
                c.templates,
                c.packetFlows,
                c.rollups,
                c.zmq,
                c.ipfix,
                c.flowsTopic,
                c.interfaceCounters,
                c.enrichedFlows,
                c.enrichedFlowsTopic);
    }

    /** The components, mutable while a copy is made. */
    private static final class Copy {
        Sink<FlowRecord> flows;
        Sink<ExporterStats> stats;
        Sink<RejectedDatagram> rejected;
        Sink<ArchivedTemplate> templates;
        Sink<FlowRecord> packetFlows;
        RollupTopology.SinkFactory rollups;
        Sink<FlowRecord> zmq;
        Sink<FlowRecord> ipfix;
        Sink<FlowRecord> flowsTopic;
        Sink<InterfaceCounters> interfaceCounters;
        Sink<EnrichedFlow> enrichedFlows;
        Sink<EnrichedFlow> enrichedFlowsTopic;

        Copy(PipelineSinks s) {
            flows = s.flows;
            stats = s.stats;
            rejected = s.rejected;
            templates = s.templates;
            packetFlows = s.packetFlows;
            rollups = s.rollups;
            zmq = s.zmq;
            ipfix = s.ipfix;
            flowsTopic = s.flowsTopic;
            interfaceCounters = s.interfaceCounters;
            enrichedFlows = s.enrichedFlows;
            enrichedFlowsTopic = s.enrichedFlowsTopic;
        }
    }
}
