// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** Settings of the windowed rollups, parsed into {@link RollupSettings}. */
public final class RollupOptions {

    public static final ConfigOption<Boolean> ENABLED =
            ConfigOptions.key("flowhouse.rollup.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription("Write rollup tables flows_<resolution> next to raw flows.");

    public static final ConfigOption<List<String>> RESOLUTIONS =
            ConfigOptions.key("flowhouse.rollup.resolutions")
                    .stringType()
                    .asList()
                    .defaultValues("1m", "1h")
                    .withDescription(
                            "Tumbling event-time window sizes, each with its own table"
                                    + " flows_<size> (e.g. '1m;5m;1h'; units s, m, h, d).");

    public static final ConfigOption<Integer> TOP_N =
            ConfigOptions.key("flowhouse.rollup.top-n")
                    .intType()
                    .defaultValue(20)
                    .withDescription("Top talkers and conversations kept per window and exporter.");

    public static final ConfigOption<Integer> TOP_CAPACITY =
            ConfigOptions.key("flowhouse.rollup.top-capacity")
                    .intType()
                    .defaultValue(4096)
                    .withDescription(
                            "Talkers (and, separately, conversations) tracked per window and"
                                    + " exporter, spread over the top shards: a bounded"
                                    + " Space-Saving summary. Below this many distinct addresses"
                                    + " the top-N rows are exact; above it a row's bytes may"
                                    + " exceed the true count by its bytes_error (at most the"
                                    + " shard's bytes / its capacity). State: about 64 bytes per"
                                    + " address per open window.");

    public static final ConfigOption<Integer> TOP_SHARDS =
            ConfigOptions.key("flowhouse.rollup.top-shards")
                    .intType()
                    .defaultValue(4)
                    .withDescription(
                            "Shards of the address space per exporter for the talker and"
                                    + " conversation summaries: more shards spread one busy"
                                    + " exporter over more parallel subtasks.");

    public static final ConfigOption<Duration> MAX_OUT_OF_ORDERNESS =
            ConfigOptions.key("flowhouse.rollup.max-out-of-orderness")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(3))
                    .withDescription(
                            "How far behind the flows' watermark (the receive time of their"
                                    + " datagrams, per Kafka partition; packet time for packet"
                                    + " flows) a window waits before it fires: a flow is exported"
                                    + " after it ends, and its early pieces arrive up to its length"
                                    + " late. Cover the exporters' inactive timeout.");

    public static final ConfigOption<Duration> ALLOWED_LATENESS =
            ConfigOptions.key("flowhouse.rollup.allowed-lateness")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(10))
                    .withDescription(
                            "Flows later than the watermark by up to this much update their"
                                    + " buckets (the bucket row is written again and replaces the"
                                    + " earlier one); later ones are counted"
                                    + " (flowhouse_rollup_late_pieces_total) and dropped to a"
                                    + " side output.");

    public static final ConfigOption<Duration> IDLENESS =
            ConfigOptions.key("flowhouse.rollup.idleness")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "Unused: the rollups take the watermark and idleness of the flows'"
                                    + " sources (flowhouse.decode.idleness per Kafka partition,"
                                    + " flowhouse.packets.idleness); kept so that configurations"
                                    + " that set it still load.");

    public static final ConfigOption<List<String>> TTL_DAYS =
            ConfigOptions.key("flowhouse.rollup.ttl-days")
                    .stringType()
                    .asList()
                    .defaultValues("1m=30", "1h=400")
                    .withDescription(
                            "Days each rollup table is kept, as RESOLUTION=DAYS entries, on"
                                    + " servers with TTL; unlisted resolutions are kept forever.");

    public static final ConfigOption<Integer> COMBINE_BUCKETS =
            ConfigOptions.key("flowhouse.rollup.combine-buckets")
                    .intType()
                    .defaultValue(PieceCombiner.DEFAULT_MAX_BUCKETS)
                    .withDescription(
                            "Flow pieces are summed per bucket in the upstream subtask before the"
                                    + " shuffle to the windows, and sent on at every watermark,"
                                    + " checkpoint, or when this many buckets are held (per"
                                    + " subtask and resolution); 0 sends every piece on its own.");

    private RollupOptions() {}
}
