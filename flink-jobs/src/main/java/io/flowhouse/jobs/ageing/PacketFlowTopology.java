// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.packet.PacketClockMark;
import io.flowhouse.codec.packet.PacketSummary;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.Source;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateChangelogOptions;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The packets path: {@code packets.raw} summaries, stamped with packet time (per-partition
 * watermarks with idleness), keyed by flow, aged into {@link FlowRecord}s by {@link
 * FlowAgeingFunction}. The agent's clock marks ({@link PacketClockMark}) move the watermark when a
 * capture goes quiet or ends and are dropped before the flow table. The caller joins the result
 * with the decoded NetFlow/IPFIX flows, so every sink and rollup serves both.
 */
public final class PacketFlowTopology {

    public static final String UID_SOURCE_PACKETS = "source-packets-raw";
    public static final String UID_AGEING = "age-packet-flows";

    /** Drops the clock marks once they moved the source's watermark. */
    public static final String UID_DROP_MARKS = "drop-packet-clock-marks";

    /** The bucketed flow table's operator: its state does not restore from {@link #UID_AGEING}. */
    public static final String UID_AGEING_BUCKETED = "age-packet-flows-bucketed";

    private static final Logger LOG = LoggerFactory.getLogger(PacketFlowTopology.class);

    private PacketFlowTopology() {}

    /** Packet flows from a source of summaries (Kafka in production, bounded data in tests). */
    public static DataStream<FlowRecord> attach(
            StreamExecutionEnvironment env, Source<PacketSummary, ?, ?> packets, AgeingSettings s) {
        DataStream<PacketSummary> summaries =
                env.fromSource(
                                packets,
                                strategy(
                                        s.maxOutOfOrderness(),
                                        s.idleness(),
                                        endOfCaptureHorizon(s)),
                                s.topic())
                        .uid(UID_SOURCE_PACKETS);
        return age(summaries, s);
    }

    /**
     * Keys packets by flow (or by flow-table bucket, {@code flowhouse.packets.flow-table}; {@code
     * auto} decides by the state backend of the environment's configuration, {@link
     * AgeingSettings#bucketedTable(ReadableConfig)}) and ages them.
     */
    public static DataStream<FlowRecord> age(DataStream<PacketSummary> all, AgeingSettings s) {
        DataStream<PacketSummary> packets =
                all.transform(
                                "drop clock marks",
                                TypeInformation.of(PacketSummary.class),
                                new DropClockMarksOperator())
                        .uid(UID_DROP_MARKS);
        ReadableConfig flink = packets.getExecutionEnvironment().getConfiguration();
        boolean bucketed = s.bucketedTable(flink);
        LOG.info(
                "packet flow ageing: {} flow table (flowhouse.packets.flow-table {}, state backend"
                        + " {}, changelog {})",
                bucketed ? "bucketed" : "keyed",
                s.flowTable().name().toLowerCase(Locale.ROOT),
                flink.get(StateBackendOptions.STATE_BACKEND),
                flink.get(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG));
        if (bucketed) {
            return packets.keyBy(
                            new PacketBucketSelector(s.biflow(), s.flowTableBuckets()), Types.INT)
                    .process(
                            new BucketedFlowAgeingFunction(s), TypeInformation.of(FlowRecord.class))
                    .uid(UID_AGEING_BUCKETED)
                    .name("packet flow ageing");
        }
        return packets.keyBy(new PacketFlowKeySelector(s.biflow()))
                .process(new FlowAgeingFunction(s), TypeInformation.of(FlowRecord.class))
                .uid(UID_AGEING)
                .name("packet flow ageing");
    }

    /**
     * How far past its last packet an end-of-capture mark moves packet time: far enough that the
     * watermark passes every open flow's deadline (at most its last packet plus the idle timeout).
     */
    public static Duration endOfCaptureHorizon(AgeingSettings s) {
        return s.idleTimeout().plus(s.maxOutOfOrderness()).plusMillis(1);
    }

    /**
     * Packet time as event time; bounded out-of-orderness plus idleness. A tick counts at its time,
     * an end-of-capture mark {@code endOfCaptureHorizon} later, so that every flow of the capture
     * ends.
     */
    public static WatermarkStrategy<PacketSummary> strategy(
            Duration maxOutOfOrderness, Duration idleness, Duration endOfCaptureHorizon) {
        long horizon = endOfCaptureHorizon.toMillis();
        WatermarkStrategy<PacketSummary> w =
                WatermarkStrategy.<PacketSummary>forBoundedOutOfOrderness(maxOutOfOrderness)
                        .withTimestampAssigner((p, previous) -> eventTime(p, horizon));
        return idleness.isZero() ? w : w.withIdleness(idleness);
    }

    static long eventTime(PacketSummary p, long endOfCaptureHorizonMillis) {
        long ms = Math.floorDiv(p.timestampNanos(), 1_000_000L);
        PacketClockMark mark = PacketClockMark.of(p);
        return mark != null && mark.kind() == PacketClockMark.Kind.END_OF_CAPTURE
                ? ms + endOfCaptureHorizonMillis
                : ms;
    }

    /**
     * The packets topic from {@code start}; bounded at {@code stop} when not null (reprocessing).
     */
    public static KafkaSource<PacketSummary> kafkaSource(
            String bootstrapServers,
            String topic,
            String groupId,
            OffsetsInitializer start,
            OffsetsInitializer stop) {
        return kafkaSource(bootstrapServers, topic, groupId, start, stop, new Properties());
    }

    /**
     * As above, with Kafka client properties (TLS, SASL, ...: {@code flowhouse.kafka.properties.*})
     * applied after the source's own.
     */
    public static KafkaSource<PacketSummary> kafkaSource(
            String bootstrapServers,
            String topic,
            String groupId,
            OffsetsInitializer start,
            OffsetsInitializer stop,
            Properties clientProperties) {
        var b =
                KafkaSource.<PacketSummary>builder()
                        .setBootstrapServers(bootstrapServers)
                        .setTopics(topic)
                        .setGroupId(groupId + "-packets")
                        .setClientIdPrefix(groupId + "-packets")
                        .setStartingOffsets(start)
                        .setDeserializer(new PacketBatchDeserializationSchema())
                        .setProperty("commit.offsets.on.checkpoint", "true")
                        .setProperty("partition.discovery.interval.ms", "60000")
                        .setProperty("max.partition.fetch.bytes", Integer.toString(8 << 20))
                        .setProperties(clientProperties);
        if (stop != null) {
            b.setBounded(stop);
        }
        return b.build();
    }
}
