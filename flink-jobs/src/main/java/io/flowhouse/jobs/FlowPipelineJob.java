// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.JobConfigLoader;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.decode.DecodeOutputs;
import io.flowhouse.jobs.decode.DecodeRawFlowFunction;
import io.flowhouse.jobs.decode.ExporterKeys;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterKeyTypeInfo;
import io.flowhouse.jobs.stats.AggregateExporterStats;
import io.flowhouse.jobs.stats.ExporterStats;
import io.flowhouse.sinks.ipfix.IpfixExporterOptions;
import io.flowhouse.sinks.ipfix.IpfixExporterSink;
import io.flowhouse.sinks.zmq.ZmqSink;
import io.flowhouse.sinks.zmq.ZmqSinkOptions;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.DataStreamSink;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * The flow pipeline: raw datagrams from {@code flows.raw} are decoded per exporter (templates in
 * keyed state, restored from the templates topic on replays), stamped with event time, and written
 * to ClickHouse exactly once (and, when configured, published to ntopng over ZMQ and re-exported as
 * IPFIX: {@link #attachFanOut}); dead letters go to {@code flows.rejected}, learned templates to
 * {@code flows.templates}, per-exporter statistics to ClickHouse {@code exporter_stats}.
 *
 * <p>{@link #main} is the entry point of the shaded job jar ({@code flink run flink-jobs-*-job.jar
 * [--config FILE] [--key value ...]}, or {@code ./flowhouse job submit}): it parses configuration
 * ({@link JobConfigLoader}), creates missing topics and wires Kafka and ClickHouse ({@link
 * PipelineConnectors}) around {@link #build}, which tests call with their own sources and sinks.
 * Every stateful operator has a stable {@code uid}, so savepoints survive code changes and restore
 * at another parallelism (up to the max parallelism).
 */
public final class FlowPipelineJob {

    public static final String UID_SOURCE_RAW = "source-flows-raw";
    public static final String UID_SOURCE_TEMPLATES = "source-flows-templates";
    public static final String UID_DECODE = "decode-raw-flows";
    public static final String UID_EXPORTER_STATS = "exporter-stats";
    public static final String UID_WATERMARKS = "flow-watermarks";
    public static final String UID_SINK_FLOWS = "sink-clickhouse-flows";
    public static final String UID_SINK_STATS = "sink-clickhouse-exporter-stats";
    public static final String UID_SINK_REJECTED = "sink-kafka-rejected";
    public static final String UID_SINK_TEMPLATES = "sink-kafka-templates";
    public static final String UID_SINK_ZMQ = "zmq-sink";
    public static final String UID_SINK_IPFIX = "ipfix-sink";

    private FlowPipelineJob() {}

    /** Drops everything: the placeholder input when there is no template archive. */
    private static final class DropAll implements FilterFunction<ArchivedTemplate> {
        @Override
        public boolean filter(ArchivedTemplate t) {
            return false;
        }
    }

    public static void main(String[] args) throws Exception {
        Configuration conf = JobConfigLoader.load(args);
        PipelineSettings s = PipelineSettings.from(conf, System.getenv());
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        configure(env, s);
        KafkaTopics.ensure(s);
        DataStream<FlowRecord> flows =
                build(
                        env,
                        PipelineConnectors.rawSource(s),
                        PipelineConnectors.templatesSource(s),
                        PipelineConnectors.sinks(s),
                        s);
        attachFanOut(flows, conf.toMap());
        // Issue 6: packet flows aged from packets.raw (same flows table) and the rollups of both.
        io.flowhouse.jobs.rollup.FlowAnalytics.attach(
                env,
                conf,
                s,
                flows,
                s.start().toOffsetsInitializer(),
                s.boundedToLatest()
                        ? org.apache.flink.connector.kafka.source.enumerator.initializer
                                .OffsetsInitializer.latest()
                        : null,
                s.clickhouse().tables());
        env.execute(s.jobName());
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
     * Builds the topology.
     *
     * @param raw source of raw datagrams
     * @param templates source of archived templates (bounded: the topic up to the job's start); may
     *     be null when there is no archive
     * @return the decoded, timestamped flows (already sent to {@code sinks.flows()})
     */
    public static DataStream<FlowRecord> build(
            StreamExecutionEnvironment env,
            Source<RawDatagram, ?, ?> raw,
            Source<ArchivedTemplate, ?, ?> templates,
            PipelineSinks sinks,
            PipelineSettings s) {
        DataStream<RawDatagram> datagrams =
                env.fromSource(raw, WatermarkStrategy.noWatermarks(), "flows.raw")
                        .uid(UID_SOURCE_RAW);
        DataStream<ArchivedTemplate> archived;
        if (templates != null) {
            archived =
                    env.fromSource(templates, WatermarkStrategy.noWatermarks(), "flows.templates")
                            .uid(UID_SOURCE_TEMPLATES);
        } else {
            // No archive: a one-element placeholder dropped at once (fromData of an empty
            // collection fails at run time in Flink 2.2), so the topology keeps its shape.
            archived =
                    env.fromData(
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
        SingleOutputStreamOperator<FlowRecord> decoded =
                datagrams
                        .connect(archived)
                        .keyBy(
                                new ExporterKeys.OfDatagram(s.decode().scopeMode()),
                                new ExporterKeys.OfArchived(s.decode().scopeMode()),
                                ExporterKeyTypeInfo.INSTANCE)
                        .process(
                                new DecodeRawFlowFunction(s.decode()),
                                TypeInformation.of(FlowRecord.class))
                        .uid(UID_DECODE)
                        .name("decode");
        SingleOutputStreamOperator<FlowRecord> flows =
                decoded.assignTimestampsAndWatermarks(
                                FlowTimestamps.strategy(s.maxOutOfOrderness(), s.idleness()))
                        .uid(UID_WATERMARKS)
                        .name("event time");
        flows.sinkTo(sinks.flows()).uid(UID_SINK_FLOWS).name("clickhouse flows");
        DataStream<RejectedDatagram> rejected = decoded.getSideOutput(DecodeOutputs.REJECTED);
        rejected.sinkTo(sinks.rejected()).uid(UID_SINK_REJECTED).name("kafka " + s.rejectedTopic());
        if (sinks.templates() != null) {
            decoded.getSideOutput(DecodeOutputs.TEMPLATES)
                    .sinkTo(sinks.templates())
                    .uid(UID_SINK_TEMPLATES)
                    .name("kafka " + s.templatesTopic());
        }
        if (sinks.stats() != null) {
            decoded.getSideOutput(DecodeOutputs.OBSERVATIONS)
                    .keyBy(new ExporterKeys.OfObservation(), ExporterKeyTypeInfo.INSTANCE)
                    .process(new AggregateExporterStats(), TypeInformation.of(ExporterStats.class))
                    .uid(UID_EXPORTER_STATS)
                    .name("exporter stats")
                    .sinkTo(sinks.stats())
                    .uid(UID_SINK_STATS)
                    .name("clickhouse exporter_stats");
        }
        return flows;
    }

    /**
     * Adds the optional fan-out sinks to the flow stream, each only when its switch key is set: the
     * ntopng ZMQ publisher ({@value ZmqSinkOptions#ENDPOINT_KEY}, parallelism 1 in bind mode
     * because one port is bound) and the IPFIX re-export ({@value
     * IpfixExporterOptions#TARGETS_KEY}, comma-separated; a YAML list is accepted too). Both are
     * at-most-once, like the protocols they speak.
     *
     * @param config the job's flat configuration ({@code flowhouse.zmq.*}, {@code
     *     flowhouse.ipfix.*}; other keys are ignored)
     * @return how many sinks were added (0 when neither is configured)
     * @throws IllegalArgumentException naming the first bad key
     */
    public static int attachFanOut(DataStream<FlowRecord> flows, Map<String, String> config) {
        Map<String, String> flat = new LinkedHashMap<>(config);
        // JobConfigLoader joins a YAML list with ';'; the sinks split on ','.
        flat.computeIfPresent(IpfixExporterOptions.TARGETS_KEY, (k, v) -> v.replace(';', ','));
        int added = 0;
        ZmqSinkOptions zmq = ZmqSinkOptions.fromConfig(flat);
        if (zmq != null) {
            DataStreamSink<FlowRecord> sink =
                    flows.sinkTo(new ZmqSink(zmq)).uid(UID_SINK_ZMQ).name("zmq " + zmq.endpoint());
            if (!zmq.connectMode()) {
                sink.setParallelism(1);
            }
            added++;
        }
        IpfixExporterOptions ipfix = IpfixExporterOptions.fromConfig(flat);
        if (ipfix != null) {
            flows.sinkTo(new IpfixExporterSink(ipfix))
                    .uid(UID_SINK_IPFIX)
                    .name("ipfix " + ipfix.targets());
            added++;
        }
        return added;
    }
}
