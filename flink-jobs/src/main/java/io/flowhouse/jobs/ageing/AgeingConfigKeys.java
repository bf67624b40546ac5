// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.config.ConfigSchema;
import io.flowhouse.config.Key;
import io.flowhouse.config.Types;
import io.flowhouse.config.ValueType;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;

/**
 * The keys of packet flow ageing ({@code flowhouse.packets.*}: {@code packets.raw} to flows),
 * declared once, and the {@link AgeingSettings} they resolve to ({@link AgeingSettings#from}). Part
 * of the job's schema; their table in {@code README-rollups.md} is generated from these
 * declarations.
 */
public final class AgeingConfigKeys {

    private static final ValueType<AgeingSettings.FlowTableChoice> FLOW_TABLE_CHOICE =
            ValueType.of(
                    "one of auto, bucketed, keyed",
                    AgeingConfigKeys::parseFlowTable,
                    c -> c.name().toLowerCase(Locale.ROOT));

    public static final Key<Boolean> ENABLED =
            Key.of("packets.enabled", Types.BOOLEAN)
                    .defaultValue(true)
                    .doc(
                            "Read packet summaries from the packets topic and age them into flows"
                                    + " that join the decoded NetFlow/IPFIX flows.");

    public static final Key<Boolean> SFLOW_SAMPLES =
            Key.of("packets.sflow-samples", Types.BOOLEAN)
                    .defaultValue(false)
                    .doc(
                            "Age sFlow flow samples into flows instead of writing one row per"
                                    + " sample: the samples of one agent, sub-agent, rate,"
                                    + " interface pair, VLAN and 5-tuple become one row, packets"
                                    + " the samples and bytes the sum of their frame lengths (so"
                                    + " packets and bytes times sampling_rate estimate the"
                                    + " traffic, as for single samples), with the active and"
                                    + " idle timeouts above on receive time; independent of"
                                    + " packets.enabled.");

    public static final Key<Integer> SFLOW_SAMPLES_MAX_ACTIVE_FLOWS =
            Key.of("packets.sflow-samples-max-active-flows", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(1_000_000)
                    .doc(
                            "Memory bound of packets.sflow-samples: most sampled flows held per"
                                    + " parallel instance (an exporter sending random addresses"
                                    + " or ports opens one per sample). Beyond it a sample of a new"
                                    + " flow is written at once as a one-sample flow with end"
                                    + " reason 5 (lack of resources), never dropped, and counted"
                                    + " in sflow_sample_flows_lack_of_resources_total; 0 is"
                                    + " unbounded.");

    public static final Key<String> TOPIC =
            Key.of("packets.topic", Types.STRING)
                    .defaultValue("packets.raw")
                    .doc("Topic of packet summary batches written by the capture agent.");

    public static final Key<String> MODE =
            Key.of("packets.flow-mode", Types.oneOf("uniflow", "biflow"))
                    .defaultValue("uniflow")
                    .doc(
                            "uniflow: one flow per direction (as softflowd and pmacct export by"
                                    + " default); biflow: both directions in one flow, the"
                                    + " initiator as source and the other direction in the RFC 5103"
                                    + " reverse counters.");

    public static final Key<Duration> ACTIVE_TIMEOUT =
            Key.of("packets.active-timeout", millis())
                    .defaultValue(Duration.ofSeconds(120))
                    .doc(
                            "A flow still active this long after its first packet is exported and"
                                    + " a new one starts (softflowd maxlife, nProbe -t).");

    public static final Key<Duration> IDLE_TIMEOUT =
            Key.of("packets.idle-timeout", millis())
                    .defaultValue(Duration.ofSeconds(30))
                    .doc("A flow without packets for this long is exported (nProbe -d).");

    public static final Key<Duration> TCP_END_TIMEOUT =
            Key.of("packets.tcp-end-timeout", millis())
                    .defaultValue(Duration.ofSeconds(10))
                    .doc(
                            "A TCP flow is exported this long after its first FIN or RST, so the"
                                    + " closing packets still count in it (pmacct tcp.fin/tcp.rst);"
                                    + " 0 exports at the FIN/RST.");

    public static final Key<Integer> MAX_ACTIVE_FLOWS =
            Key.of("packets.max-active-flows", Types.integer(0, Integer.MAX_VALUE))
                    .defaultValue(2_000_000)
                    .doc(
                            "Memory bound: most flows cached. Bucketed flow table: over the"
                                    + " whole job, split evenly over packets.flow-table-buckets"
                                    + " (each bucket holds at most its share, rounded up, so a"
                                    + " replay or rescale cuts the same flows); keyed flow table:"
                                    + " per parallel instance. Beyond it a packet of a new flow is"
                                    + " exported at once as a one-packet flow with end reason 5"
                                    + " (lack of resources) and counted; 0 is unbounded.");

    public static final Key<Duration> STATE_TTL =
            Key.of("packets.state-ttl", millis())
                    .defaultValue(Duration.ofHours(2))
                    .doc(
                            "Backstop: flow state untouched this long (processing time) is dropped"
                                    + " even if its timer never fired (a stalled watermark).");

    public static final Key<String> EXPORTER_ADDRESS =
            Key.of("packets.exporter-address", Types.STRING)
                    .defaultValue("127.0.0.1")
                    .doc(
                            "The exporter address packet flows carry (the capture agent's"
                                    + " address); the capture interface index is the observation"
                                    + " domain and in_if.");

    public static final Key<Duration> MAX_OUT_OF_ORDERNESS =
            Key.of("packets.max-out-of-orderness", millis())
                    .defaultValue(Duration.ofSeconds(30))
                    .doc(
                            "Bounded out-of-orderness of packet timestamps within a partition. The"
                                    + " agent batches packets per flow bucket, so a partition"
                                    + " interleaves batches: live capture stays within the batch"
                                    + " linger, but a pcap replayed at max speed can span the whole"
                                    + " file; set this to the file's span (or replay at --speed 1x)"
                                    + " for exact flows. Packets behind the watermark are counted"
                                    + " in flowhouse_packets_late_total; one whose flow is no"
                                    + " longer open is dropped (never starts a flow) and counted"
                                    + " in flowhouse_packets_late_dropped_total.");

    public static final Key<Duration> IDLENESS =
            Key.of("packets.idleness", millis())
                    .defaultValue(Duration.ofMinutes(1))
                    .doc(
                            "A packets partition silent this long stops holding back the"
                                    + " watermark.");

    public static final Key<AgeingSettings.FlowTableChoice> FLOW_TABLE =
            Key.of("packets.flow-table", FLOW_TABLE_CHOICE)
                    .defaultValue(AgeingSettings.FlowTableChoice.AUTO)
                    .doc(
                            "bucketed: packets keyed by a hash bucket of their flow key, one keyed"
                                    + " state entry per bucket holding a compact open-addressing"
                                    + " table of its flows and one event-time timer per bucket"
                                    + " (less CPU and memory per flow on the heap backend, where"
                                    + " tables are updated in place); keyed: one keyed state"
                                    + " entry and one timer per flow; auto: bucketed on the heap"
                                    + " (hashmap) state backend, keyed on RocksDB/ForSt (or any"
                                    + " other backend, or with the changelog enabled), by the"
                                    + " state.backend.type the job's client sees. Both end flows"
                                    + " identically; their state is not compatible (a savepoint"
                                    + " of one does not restore into the other).");

    public static final Key<Integer> FLOW_TABLE_BUCKETS =
            Key.of("packets.flow-table-buckets", Types.integer(1, Integer.MAX_VALUE))
                    .defaultValue(4096)
                    .doc(
                            "Buckets of the bucketed flow table, over all parallel instances (a"
                                    + " multiple of the max parallelism spreads them evenly over"
                                    + " key groups). More buckets: smaller tables to scan when a"
                                    + " bucket's timer fires; fewer: less per-bucket overhead."
                                    + " Changing it moves flows between buckets, so change it only"
                                    + " without restoring packet-flow state.");

    /** In declaration order. */
    public static final List<Key<?>> KEYS =
            List.of(
                    ENABLED,
                    TOPIC,
                    MODE,
                    ACTIVE_TIMEOUT,
                    IDLE_TIMEOUT,
                    TCP_END_TIMEOUT,
                    MAX_ACTIVE_FLOWS,
                    STATE_TTL,
                    EXPORTER_ADDRESS,
                    MAX_OUT_OF_ORDERNESS,
                    IDLENESS,
                    FLOW_TABLE,
                    FLOW_TABLE_BUCKETS,
                    SFLOW_SAMPLES,
                    SFLOW_SAMPLES_MAX_ACTIVE_FLOWS);

    /** These keys alone under {@code flowhouse}: their defaults and README table. */
    public static final ConfigSchema SCHEMA = ConfigSchema.of("flowhouse", "packet flows", KEYS);

    private AgeingConfigKeys() {}

    private static AgeingSettings.FlowTableChoice parseFlowTable(String text) {
        String table = text.trim().toLowerCase(Locale.ROOT);
        return switch (table) {
            case "auto" -> AgeingSettings.FlowTableChoice.AUTO;
            case "bucketed" -> AgeingSettings.FlowTableChoice.BUCKETED;
            case "keyed" -> AgeingSettings.FlowTableChoice.KEYED;
            default ->
                    throw new IllegalArgumentException(
                            "flow table " + table + " (expected: auto, bucketed or keyed)");
        };
    }

    private static ValueType<Duration> millis() {
        return Types.duration(ChronoUnit.MILLIS, Duration.ZERO, null);
    }
}
