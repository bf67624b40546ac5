// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;

/**
 * The keys of the windowed rollups ({@code flowhouse.rollup.*}), declared once, and the {@link
 * RollupSettings} they resolve to ({@link RollupSettings#from}). Part of the job's schema; their
 * table in {@code README-rollups.md} is generated from these declarations.
 */
public final class RollupConfigKeys {

    /** A window size: {@code 30s}, {@code 1m}, {@code 1h}, {@code 1d} or any duration text. */
    private static final ValueType<Duration> RESOLUTION =
            ValueType.of(
                    "resolution (30s, 1m, 1h, 1d)",
                    RollupSettings::parseResolution,
                    RollupConfigKeys::resolutionText);

    public static final Key<Boolean> ENABLED =
            Key.of("rollup.enabled", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc("Write rollup tables flows_<resolution> next to raw flows.");

    public static final Key<List<Duration>> RESOLUTIONS =
            Key.of("rollup.resolutions", Types.list(RESOLUTION))
                    .defaultValue(List.of(Duration.ofMinutes(1), Duration.ofHours(1)))
                    .doc(
                            "Tumbling event-time window sizes, each with its own table"
                                    + " flows_<size> (e.g. 1m;5m;1h or 1m,5m,1h; units s, m, h, d).");

    public static final Key<Integer> TOP_N =
            Key.of("rollup.top-n", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(20)
                    .doc("Top talkers and conversations kept per window and exporter.");

    public static final Key<Integer> TOP_CAPACITY =
            Key.of("rollup.top-capacity", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(4096)
                    .doc(
                            "Talkers (and, separately, conversations) tracked per window and"
                                    + " exporter, spread over the top shards: a bounded"
                                    + " Space-Saving summary. Below this many distinct addresses"
                                    + " the top-N rows are exact; above it a row's bytes may"
                                    + " exceed the true count by its bytes_error (at most the"
                                    + " shard's bytes / its capacity). State: about 64 bytes per"
                                    + " address per open window.");

    public static final Key<Integer> TOP_SHARDS =
            Key.of("rollup.top-shards", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(4)
                    .doc(
                            "Shards of the address space per exporter for the talker and"
                                    + " conversation summaries: more shards spread one busy"
                                    + " exporter over more parallel subtasks.");

    public static final Key<Duration> MAX_OUT_OF_ORDERNESS =
            Key.of("rollup.max-out-of-orderness", millis())
                    .defaultValue(Duration.ofMinutes(3))
                    .doc(
                            "How far behind the flows' watermark (the receive time of their"
                                    + " datagrams, per Kafka partition; packet time for packet"
                                    + " flows) a window waits before it fires: a flow is exported"
                                    + " after it ends, and its early pieces arrive up to its length"
                                    + " late. Cover the exporters' inactive timeout.");

    public static final Key<Duration> ALLOWED_LATENESS =
            Key.of("rollup.allowed-lateness", millis())
                    .defaultValue(Duration.ofMinutes(10))
                    .doc(
                            "Flows later than the watermark by up to this much update their"
                                    + " buckets (the bucket row is written again and replaces the"
                                    + " earlier one); later ones are counted"
                                    + " (flowhouse_rollup_late_pieces_total) and dropped to a"
                                    + " side output.");

    public static final Key<Duration> IDLENESS =
            Key.of("rollup.idleness", millis())
                    .defaultValue(Duration.ofMinutes(1))
                    .doc(
                            "Unused: the rollups take the watermark and idleness of the flows'"
                                    + " sources (flowhouse.decode.idleness per Kafka partition,"
                                    + " flowhouse.packets.idleness); kept so that configurations"
                                    + " that set it still load.");

    public static final Key<List<String>> TTL_DAYS =
            Key.of("rollup.ttl-days", Types.list(Types.STRING))
                    .defaultValue(List.of("1m=30", "1h=400"))
                    .doc(
                            "Days each rollup table is kept, as RESOLUTION=DAYS entries, on"
                                    + " servers with TTL; unlisted resolutions are kept forever.");

    public static final Key<Integer> COMBINE_BUCKETS =
            Key.of("rollup.combine-buckets", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(PieceCombiner.DEFAULT_MAX_BUCKETS)
                    .doc(
                            "Flow pieces (of the plain and, with enrichment, the context"
                                    + " rollups) are summed per bucket in the upstream subtask"
                                    + " before the shuffle to the windows, and sent on at every"
                                    + " watermark,"
                                    + " checkpoint, or when this many buckets are held (per"
                                    + " subtask, input and resolution; the inputs are the decoded"
                                    + " flows, the aged sFlow samples and the packet flows); 0"
                                    + " sends every piece on its own.");

    public static final Key<Integer> MAX_BUCKETS_PER_EXPORTER =
            Key.of("rollup.max-buckets-per-exporter", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(BucketBudget.DEFAULT_MAX_BUCKETS)
                    .doc(
                            "Distinct interface, proto-port and AS-pair buckets one exporter opens"
                                    + " per window and kind (per subtask and input: decoded flows,"
                                    + " aged sFlow samples, packet flows); pieces of further"
                                    + " buckets are summed in the kind's bucket of zeros (interface"
                                    + " 0, protocol 0 port 0, AS 0 to AS 0), so totals stay exact,"
                                    + " and counted in rollup_buckets_folded_total. The same bound"
                                    + " holds for each kind of the context rollups (enrichment on:"
                                    + " interface names, country pairs, boundary/protocol/AS; their"
                                    + " bucket of zeros has no interface, name, protocol, AS or"
                                    + " country but keeps direction and boundaries), counted in"
                                    + " rollup_context_buckets_folded_total.");

    /** In declaration order. */
    public static final List<Key<?>> KEYS =
            List.of(
                    ENABLED,
                    RESOLUTIONS,
                    TOP_N,
                    TOP_CAPACITY,
                    TOP_SHARDS,
                    MAX_OUT_OF_ORDERNESS,
                    ALLOWED_LATENESS,
                    IDLENESS,
                    TTL_DAYS,
                    COMBINE_BUCKETS,
                    MAX_BUCKETS_PER_EXPORTER);

    /** These keys alone under {@code flowhouse}: their defaults and README table. */
    public static final ConfigSchema SCHEMA = ConfigSchema.of("flowhouse", "rollups", KEYS);

    private RollupConfigKeys() {}

    private static String resolutionText(Duration d) {
        try {
            return RollupTables.label(d);
        } catch (IllegalArgumentException e) {
            return Types.formatDuration(d);
        }
    }

    private static ValueType<Duration> millis() {
        return Types.duration(ChronoUnit.MILLIS, Duration.ZERO, null);
    }
}
