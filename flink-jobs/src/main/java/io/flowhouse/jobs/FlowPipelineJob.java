// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigException;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.jobs.ageing.PacketFlowTopology;
import io.flowhouse.jobs.ageing.SflowSampleAgeing;
import io.flowhouse.jobs.cli.JobArgs;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.decode.DecodeOperator;
import io.flowhouse.jobs.decode.DecodeOutputs;
import io.flowhouse.jobs.decode.ExporterKeys;
import io.flowhouse.jobs.enrich.EnrichFlows;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.jobs.enrich.ExporterNames;
import io.flowhouse.jobs.enrich.WithContextAs;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterKeyTypeInfo;
import io.flowhouse.jobs.rollup.ContextRollups;
import io.flowhouse.jobs.rollup.RollupInput;
import io.flowhouse.jobs.rollup.RollupTopology;
import io.flowhouse.jobs.stats.AggregateExporterStats;
import io.flowhouse.jobs.stats.ExporterStats;
import io.flowhouse.sinks.ipfix.IpfixExporterSink;
import io.flowhouse.sinks.zmq.ZmqSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.RuntimeExecutionMode;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExecutionOptions;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.DataStreamUtils;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The flow pipeline, as one graph ({@link #build}):
 *
 * <pre>
 * flows.raw ──▶ decode (keyed by exporter; templates in state, restored from flows.templates)
 *                 ├─▶ flows (ClickHouse; through enrich, with context, when enrich.* names a
 *                 │   file), ZMQ and IPFIX fan-out, flows.decoded (Kafka; each
 *                 │   when configured)
 *                 ├─▶ flows.rejected (dead letters), flows.templates (learned templates)
 *                 ├─▶ sFlow counter samples ─▶ interface_counters (ClickHouse)
 *                 └─▶ observations ─▶ exporter statistics (keyed by exporter) ─▶ exporter_stats
 * packets.raw ─▶ packet flow ageing (keyed by flow) ─▶ flows (ClickHouse)
 * decoded, aged sFlow samples, packet flows ─▶ rollups ─▶ flows_&lt;resolution&gt; (ClickHouse)
 * </pre>
 *
 * <p>The rollups' per-flow part (split, event time, bucket budget, combiner) runs in the chain of
 * each flow producer ({@link RollupInput}: decode, the sFlow sample ageing, the packet flow
 * ageing); the inputs meet only at the rollups' {@code keyBy}, so no flow is serialized on its way
 * to the rollups.
 *
 * <p>{@link #main} is the entry point of the shaded job jar ({@code flink run flink-jobs-*-job.jar
 * [--config FILE] [--set KEY=VALUE | --KEY VALUE ...]}, or {@code ./flowhouse job submit}): it
 * parses the configuration ({@link JobArgs}), creates missing topics and calls {@link #build} with
 * the production sources and sinks ({@link PipelineConnectors}); tests call it with their own.
 * Every stateful operator has a stable {@code uid}, so savepoints survive code changes and restore
 * at another parallelism (up to the max parallelism).
 */
public final class FlowPipelineJob {

    public static final String UID_SOURCE_RAW = "source-flows-raw";
    public static final String UID_SOURCE_TEMPLATES = "source-flows-templates";
    public static final String UID_DECODE = "decode-raw-flows";
    public static final String UID_EXPORTER_STATS = "exporter-stats";
    public static final String UID_SINK_FLOWS = "sink-clickhouse-flows";
    public static final String UID_ENRICH = "enrich-flows";
    public static final String UID_ENRICH_NOT_SAMPLES = "enriched-not-sflow-samples";
    public static final String UID_EXPORTER_NAMES = "exporter-names";
    public static final String UID_SINK_ENRICHED_FLOWS = "sink-clickhouse-enriched-flows";
    public static final String UID_SINK_PACKET_FLOWS = "sink-clickhouse-packet-flows";
    public static final String UID_SINK_STATS = "sink-clickhouse-exporter-stats";
    public static final String UID_SINK_INTERFACE_COUNTERS = "sink-clickhouse-interface-counters";
    public static final String UID_SINK_REJECTED = "sink-kafka-rejected";
    public static final String UID_SINK_TEMPLATES = "sink-kafka-templates";
    public static final String UID_SINK_ZMQ = "zmq-sink";
    public static final String UID_CONTEXT_AS = "context-as";
    public static final String UID_SINK_IPFIX = "ipfix-sink";
    public static final String UID_SINK_FLOWS_TOPIC = "sink-kafka-flows-topic";

    /**
     * The suffix of the uids of the rollup operators before the shuffle that take the packet flows
     * (the decoded flows' keep the uids of a single input).
     */
    public static final String ROLLUP_INPUT_PACKETS = "packets";

    /** The suffix of the uids of the rollup operators that take the aged sFlow samples. */
    public static final String ROLLUP_INPUT_SFLOW_AGED = "sflow-aged";

    private FlowPipelineJob() {}

    /** Keeps the enriched flows that are not sFlow samples (those are enriched once aged). */
    private static final class NotSflowSample implements FilterFunction<EnrichedFlow> {
        @Override
        public boolean filter(EnrichedFlow e) {
            return !SflowSampleAgeing.isSample(e.flow());
        }
    }

    /** Drops everything: the placeholder input when there is no template archive. */
    private static final class DropAll implements FilterFunction<ArchivedTemplate> {
        @Override
        public boolean filter(ArchivedTemplate t) {
            return false;
        }
    }

    /**
     * The job jar's entry point: parses {@code args} ({@link JobArgs}) over the process environment
     * and runs the job; {@code --help} and {@code --print-config} print and return.
     *
     * @throws io.flowhouse.config.ConfigException for a bad flag, file or value
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> environment = System.getenv();
        Config c = JobArgs.resolve(environment, System.out, args);
        if (c != null) {
            run(c, environment);
        }
    }

    /**
     * Runs the production job of a resolved configuration: creates missing topics, builds the graph
     * with the production sources and sinks, and executes it (until it is cancelled, or the bounded
     * input ends).
     *
     * @param env where the job is built (the ClickHouse password variable's presence)
     */
    public static void run(Config c, Map<String, String> env) throws Exception {
        PipelineSettings s = PipelineSettings.from(c, env);
        StreamExecutionEnvironment flink =
                StreamExecutionEnvironment.getExecutionEnvironment(JobArgs.flinkConfiguration(c));
        checkCheckpointStorage(flink.getConfiguration(), s);
        configure(flink, s);
        KafkaTopics.ensure(s);
        build(flink, PipelineConnectors.sources(s), PipelineConnectors.sinks(s), s);
        flink.execute(s.jobName());
    }

    /**
     * Refuses a STREAMING run whose checkpoints would go to the JobManager's memory (no {@code
     * execution.checkpointing.dir}, or {@code execution.checkpointing.storage: jobmanager}): that
     * storage refuses task state over 5 MiB, and every refused checkpoint fails the job and replays
     * (the rollup windows pass it within minutes, a hostile exporter's decode state sooner). {@code
     * job.allow-memory-checkpoints} lets a test or a short trial run so; BATCH runs take no
     * checkpoints. The Flink configuration is the job's own keys over the cluster's (a job
     * submitted to a session cluster sees the cluster's directory).
     *
     * @throws ConfigException naming the keys
     */
    public static void checkCheckpointStorage(ReadableConfig flink, PipelineSettings s) {
        if (s.allowMemoryCheckpoints()
                || flink.get(ExecutionOptions.RUNTIME_MODE) == RuntimeExecutionMode.BATCH) {
            return;
        }
        String storage =
                flink.getOptional(CheckpointingOptions.CHECKPOINT_STORAGE).orElse("").trim();
        boolean directory =
                flink.getOptional(CheckpointingOptions.CHECKPOINTS_DIRECTORY).isPresent();
        if (directory && !storage.equalsIgnoreCase("jobmanager")) {
            return;
        }
        throw new ConfigException(
                (directory
                                ? "execution.checkpointing.storage is jobmanager"
                                : "execution.checkpointing.dir is not set")
                        + ": the job's checkpoints would stay in the JobManager's memory, which"
                        + " refuses task state over 5 MiB and then fails the job. Set"
                        + " execution.checkpointing.dir (file:///var/lib/flowhouse/checkpoints, an"
                        + " object store) in the cluster's configuration or as"
                        + " --execution.checkpointing.dir, or --job.allow-memory-checkpoints true"
                        + " for a test.");
    }

    /** Checkpointing, parallelism and type rules of the job. */
    public static void configure(StreamExecutionEnvironment env, PipelineSettings s) {
        env.enableCheckpointing(s.checkpointInterval().toMillis(), CheckpointingMode.EXACTLY_ONCE);
        env.setMaxParallelism(s.maxParallelism());
        if (s.parallelism() > 0) {
            env.setParallelism(s.parallelism());
        }
        // Every type on the wire and in state is a POJO (records); Kryo would hide a mistake.
        Configuration types = new Configuration();
        types.set(PipelineOptions.GENERIC_TYPES, false);
        // Records are immutable and no function keeps a reference to what it emitted, so chained
        // operators may pass objects on without a defensive PojoSerializer copy.
        types.set(PipelineOptions.OBJECT_REUSE, true);
        env.configure(types);
    }

    /**
     * Builds the whole pipeline: decode (when there is a raw source), the packets path (when on and
     * there is a packets source), the rollups of both (when on), and every sink that is set.
     *
     * @return every flow: decoded and aged from packets (null when there is neither)
     */
    public static DataStream<FlowRecord> build(
            StreamExecutionEnvironment env,
            PipelineSources sources,
            PipelineSinks sinks,
            PipelineSettings s) {
        DataStream<FlowRecord> all = null;
        List<RollupInput<FlowRecord>> rollupFlows = new ArrayList<>();
        List<RollupInput<EnrichedFlow>> rollupEnriched = new ArrayList<>();
        DataStream<FlowRecord> agedFlows = null;
        if (sources.raw() != null) {
            Decoded decoded = decode(env, sources, sinks, s);
            fanOut(decoded, sinks, s);
            all = decoded.flows();
            rollupFlows.addAll(decoded.rollupFlows());
            rollupEnriched.addAll(decoded.rollupEnriched());
        }
        if (sources.packets() != null && s.ageing().enabled()) {
            DataStream<FlowRecord> packetFlows =
                    PacketFlowTopology.attach(env, sources.packets(), s.ageing());
            if (sinks.packetFlows() != null) {
                packetFlows
                        .sinkTo(sinks.packetFlows())
                        .uid(UID_SINK_PACKET_FLOWS)
                        .name("clickhouse packet flows");
            }
            all = all == null ? packetFlows : all.union(packetFlows);
            agedFlows = packetFlows;
            rollupFlows.add(new RollupInput<>(packetFlows, ROLLUP_INPUT_PACKETS));
        }
        if (all != null && s.rollup().enabled() && sinks.rollups() != null) {
            // Each input separately: the rollups split and combine it in its producer's chain.
            if (sinks.enrichedFlows() != null) {
                ContextRollups.attach(
                        enrichedForRollups(rollupEnriched, agedFlows),
                        s.rollup(),
                        sinks.rollups(),
                        sinks.rollups() instanceof ContextRollups.SinkFactory c ? c : null);
            } else {
                RollupTopology.attach(rollupFlows, s.rollup(), sinks.rollups());
            }
        }
        return all;
    }

    /**
     * The decoded flows, and the same flows with their context when enrichment is on; and the
     * rollups' inputs of each (decode's, and the aged sFlow samples' when those are aged), apart.
     */
    private record Decoded(
            DataStream<FlowRecord> flows,
            DataStream<EnrichedFlow> enriched,
            List<RollupInput<FlowRecord>> rollupFlows,
            List<RollupInput<EnrichedFlow>> rollupEnriched) {}

    /**
     * The flows the rollups count with enrichment on, with the context {@code flows} stores: the
     * enriched streams that also feed the flows table (so a reload cannot make the two disagree),
     * and packet flows with none (they are stored without context), each an input of its own.
     */
    private static List<RollupInput<EnrichedFlow>> enrichedForRollups(
            List<RollupInput<EnrichedFlow>> enriched, DataStream<FlowRecord> aged) {
        TypeInformation<EnrichedFlow> type = TypeInformation.of(EnrichedFlow.class);
        List<RollupInput<EnrichedFlow>> out = new ArrayList<>(enriched);
        if (aged != null) {
            DataStream<EnrichedFlow> none =
                    aged.map(f -> new EnrichedFlow(f, ContextRollups.none(f)))
                            .returns(type)
                            .uid("rollup-packet-flows-context")
                            .name("packet flows (no context)");
            out.add(new RollupInput<>(none, ROLLUP_INPUT_PACKETS));
        }
        return out;
    }

    /**
     * Decodes the raw datagrams; writes the flows, dead letters, learned templates and exporter
     * statistics.
     *
     * @return the decoded, timestamped flows, and with enrichment on the same flows enriched
     */
    private static Decoded decode(
            StreamExecutionEnvironment env,
            PipelineSources sources,
            PipelineSinks sinks,
            PipelineSettings s) {
        EnrichSettings enrich = sinks.enriches() ? s.enrich() : null;
        // Watermarks per partition from the receive time (FlowTimestamps), never a flow's time.
        DataStream<RawDatagram> datagrams =
                env.fromSource(
                                sources.raw(),
                                FlowTimestamps.datagrams(s.maxOutOfOrderness(), s.idleness()),
                                "flows.raw")
                        .uid(UID_SOURCE_RAW);
        SingleOutputStreamOperator<FlowRecord> decoded =
                datagrams
                        .connect(archive(env, sources))
                        .keyBy(
                                new ExporterKeys.OfDatagram(s.decode().scopeMode()),
                                new ExporterKeys.OfArchived(s.decode().scopeMode()),
                                ExporterKeyTypeInfo.INSTANCE)
                        .transform(
                                "decode",
                                TypeInformation.of(FlowRecord.class),
                                new DecodeOperator(s.decode(), quietAfter(env, s), enrich))
                        .uid(UID_DECODE)
                        .name("decode");
        DataStream<FlowRecord> flows = decoded;
        List<RollupInput<FlowRecord>> rollupFlows = new ArrayList<>();
        List<RollupInput<EnrichedFlow>> rollupEnriched = new ArrayList<>();
        SflowSampleAgeing.Split aged = null;
        if (s.ageing().sflowSamples()) {
            aged = SflowSampleAgeing.split(decoded, s.ageing());
            flows = aged.all();
            rollupFlows.add(RollupInput.main(aged.others()));
            rollupFlows.add(new RollupInput<>(aged.aged(), ROLLUP_INPUT_SFLOW_AGED));
        } else {
            rollupFlows.add(RollupInput.main(decoded));
        }
        DataStream<EnrichedFlow> enriched = null;
        if (enrich != null) {
            // The context travels beside the flow to the table, the rollups and the decoded-flows
            // topic; ZMQ and IPFIX take its AS numbers (and IPFIX its interface names). Decode
            // enriches each flow itself, with the names of its
            // own options data: decode, enrich and the sinks are one chain, nothing serialized.
            enriched = decoded.getSideOutput(DecodeOutputs.ENRICHED);
            if (aged != null) {
                // sFlow samples are enriched once aged into flows (sFlow has no options data).
                DataStream<EnrichedFlow> notSamples =
                        enriched.filter(new NotSflowSample())
                                .uid(UID_ENRICH_NOT_SAMPLES)
                                .name("enriched (not sflow samples)");
                DataStream<EnrichedFlow> agedEnriched =
                        EnrichFlows.attach(aged.aged(), enrich)
                                .uid(UID_ENRICH)
                                .name("enrich aged sflow samples");
                enriched = notSamples.union(agedEnriched);
                rollupEnriched.add(RollupInput.main(notSamples));
                rollupEnriched.add(new RollupInput<>(agedEnriched, ROLLUP_INPUT_SFLOW_AGED));
            } else {
                rollupEnriched.add(RollupInput.main(enriched));
            }
            if (sinks.enrichedFlows() != null) {
                enriched.sinkTo(sinks.enrichedFlows())
                        .uid(UID_SINK_ENRICHED_FLOWS)
                        .name("clickhouse flows (enriched)");
            }
        } else if (sinks.flows() != null) {
            flows.sinkTo(sinks.flows()).uid(UID_SINK_FLOWS).name("clickhouse flows");
        }
        decoded.getSideOutput(DecodeOutputs.REJECTED)
                .sinkTo(sinks.rejected())
                .uid(UID_SINK_REJECTED)
                .name("kafka " + s.rejectedTopic());
        if (sinks.templates() != null) {
            decoded.getSideOutput(DecodeOutputs.TEMPLATES)
                    .sinkTo(sinks.templates())
                    .uid(UID_SINK_TEMPLATES)
                    .name("kafka " + s.templatesTopic());
        }
        if (sinks.interfaceCounters() != null) {
            decoded.getSideOutput(DecodeOutputs.INTERFACE_COUNTERS)
                    .sinkTo(sinks.interfaceCounters())
                    .uid(UID_SINK_INTERFACE_COUNTERS)
                    .name("clickhouse interface_counters");
        }
        if (sinks.stats() != null) {
            // The observations come out of the decode operator keyed by its key: taken as keyed
            // as they are, the statistics chain to decode, with no shuffle and in the order made.
            DataStream<ExporterStats> stats =
                    DataStreamUtils.reinterpretAsKeyedStream(
                                    decoded.getSideOutput(DecodeOutputs.OBSERVATIONS),
                                    new ExporterKeys.OfObservation(),
                                    ExporterKeyTypeInfo.INSTANCE)
                            .process(
                                    new AggregateExporterStats(s.decode().stateLimits()),
                                    TypeInformation.of(ExporterStats.class))
                            .uid(UID_EXPORTER_STATS)
                            .name("exporter stats");
            if (s.enrich().enabled()) {
                stats =
                        stats.map(new ExporterNames(s.enrich()))
                                .uid(UID_EXPORTER_NAMES)
                                .name("exporter names");
            }
            stats.sinkTo(sinks.stats()).uid(UID_SINK_STATS).name("clickhouse exporter_stats");
        }
        return new Decoded(flows, enriched, rollupFlows, rollupEnriched);
    }

    /**
     * How long the raw input may be quiet before event time moves on with the wall clock: never in
     * BATCH mode or a bounded run (reprocessing keeps pure event time: a range read at full speed
     * must not be cut by today's clock).
     */
    static Duration quietAfter(StreamExecutionEnvironment env, PipelineSettings s) {
        boolean batch =
                env.getConfiguration().get(ExecutionOptions.RUNTIME_MODE)
                        == RuntimeExecutionMode.BATCH;
        return batch || s.boundedToLatest() ? Duration.ZERO : s.quietAfter();
    }

    /** The template archive, or a placeholder when there is none, so the graph keeps its shape. */
    private static DataStream<ArchivedTemplate> archive(
            StreamExecutionEnvironment env, PipelineSources sources) {
        if (sources.templates() != null) {
            return env.fromSource(
                            sources.templates(),
                            WatermarkStrategy.noWatermarks(),
                            "flows.templates")
                    .uid(UID_SOURCE_TEMPLATES);
        }
        // A one-element placeholder dropped at once (fromData of an empty collection fails at run
        // time in Flink 2.2).
        return env.fromData(
                        TypeInformation.of(ArchivedTemplate.class),
                        new ArchivedTemplate(
                                IpAddress.UNSPECIFIED,
                                0,
                                0,
                                0,
                                ArchivedTemplate.OPTIONS_DATA,
                                new byte[0],
                                0))
                .uid(UID_SOURCE_TEMPLATES)
                .filter(new DropAll())
                .uid(UID_SOURCE_TEMPLATES + "-none");
    }

    /**
     * The fan-out of the decoded flows: the ZMQ publisher (parallelism 1 in bind mode, because one
     * port is bound), the IPFIX re-export and the decoded-flows topic, each when set. With
     * enrichment on, ZMQ and the IPFIX re-export send the AS numbers and interface names of the
     * context (other sinks get the AS numbers alone, {@link WithContextAs}), and the topic the
     * whole context.
     */
    private static void fanOut(Decoded decoded, PipelineSinks sinks, PipelineSettings s) {
        DataStream<FlowRecord> flows = decoded.flows();
        DataStream<FlowRecord> withAs = flows;
        // The production IPFIX re-export takes the whole context (AS numbers, interface names).
        IpfixExporterSink<EnrichedFlow> ipfixWithContext =
                decoded.enriched() != null && sinks.ipfix() instanceof IpfixExporterSink<?> x
                        ? x.withInput(EnrichedFlow.FLOW_INPUT)
                        : null;
        boolean ipfixWithAs = sinks.ipfix() != null && ipfixWithContext == null;
        // So does the production ZMQ publisher (AS numbers, interface names for snmp-ifaces).
        ZmqSink<EnrichedFlow> zmqWithContext =
                decoded.enriched() != null && sinks.zmq() instanceof ZmqSink<?> z
                        ? z.withInput(EnrichedFlow.FLOW_INPUT)
                        : null;
        boolean zmqWithAs = sinks.zmq() != null && zmqWithContext == null;
        if (decoded.enriched() != null && (zmqWithAs || ipfixWithAs)) {
            withAs =
                    decoded.enriched()
                            .map(new WithContextAs(), TypeInformation.of(FlowRecord.class))
                            .uid(UID_CONTEXT_AS)
                            .name("context AS");
        }
        if (sinks.zmq() != null) {
            String endpoint = s.fanOut().zmq() == null ? "" : " " + s.fanOut().zmq().endpoint();
            DataStreamSink<?> sink =
                    zmqWithContext != null
                            ? decoded.enriched()
                                    .sinkTo(zmqWithContext)
                                    .uid(UID_SINK_ZMQ)
                                    .name("zmq" + endpoint + " (enriched)")
                            : withAs.sinkTo(sinks.zmq()).uid(UID_SINK_ZMQ).name("zmq" + endpoint);
            if (s.fanOut().zmq() == null || !s.fanOut().zmq().connectMode()) {
                sink.setParallelism(1);
            }
        }
        if (sinks.ipfix() != null) {
            String targets = s.fanOut().ipfix() == null ? "" : " " + s.fanOut().ipfix().targets();
            if (ipfixWithContext != null) {
                decoded.enriched()
                        .sinkTo(ipfixWithContext)
                        .uid(UID_SINK_IPFIX)
                        .name("ipfix" + targets + " (enriched)");
            } else {
                withAs.sinkTo(sinks.ipfix()).uid(UID_SINK_IPFIX).name("ipfix" + targets);
            }
        }
        String topic = s.flowsTopic() == null ? "" : " " + s.flowsTopic().topic();
        if (sinks.enrichedFlowsTopic() != null && decoded.enriched() != null) {
            // The same uid as without context: the sink's state (its transactions) is not typed by
            // what it writes, so turning enrichment on keeps a savepoint's topic state.
            decoded.enriched()
                    .sinkTo(sinks.enrichedFlowsTopic())
                    .uid(UID_SINK_FLOWS_TOPIC)
                    .name("kafka" + topic + " (enriched)");
        } else if (sinks.flowsTopic() != null) {
            flows.sinkTo(sinks.flowsTopic()).uid(UID_SINK_FLOWS_TOPIC).name("kafka" + topic);
        }
    }
}
