// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import java.time.Duration;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * Settings of packet flow ageing ({@code packets.raw} to flows), parsed into {@link
 * AgeingSettings}.
 */
public final class AgeingOptions {

    public static final ConfigOption<Boolean> ENABLED =
            ConfigOptions.key("flowhouse.packets.enabled")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription(
                            "Read packet summaries from the packets topic and age them into flows"
                                    + " that join the decoded NetFlow/IPFIX flows.");

    public static final ConfigOption<String> TOPIC =
            ConfigOptions.key("flowhouse.packets.topic")
                    .stringType()
                    .defaultValue("packets.raw")
                    .withDescription(
                            "Topic of packet summary batches written by the capture agent.");

    public static final ConfigOption<String> MODE =
            ConfigOptions.key("flowhouse.packets.flow-mode")
                    .stringType()
                    .defaultValue("uniflow")
                    .withDescription(
                            "uniflow: one flow per direction (as softflowd and pmacct export by"
                                    + " default); biflow: both directions in one flow, the"
                                    + " initiator as source and the other direction in the RFC 5103"
                                    + " reverse counters.");

    public static final ConfigOption<Duration> ACTIVE_TIMEOUT =
            ConfigOptions.key("flowhouse.packets.active-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(120))
                    .withDescription(
                            "A flow still active this long after its first packet is exported and"
                                    + " a new one starts (softflowd maxlife, nProbe -t).");

    public static final ConfigOption<Duration> IDLE_TIMEOUT =
            ConfigOptions.key("flowhouse.packets.idle-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "A flow without packets for this long is exported (nProbe -d).");

    public static final ConfigOption<Duration> TCP_END_TIMEOUT =
            ConfigOptions.key("flowhouse.packets.tcp-end-timeout")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(10))
                    .withDescription(
                            "A TCP flow is exported this long after its first FIN or RST, so the"
                                    + " closing packets still count in it (pmacct tcp.fin/tcp.rst);"
                                    + " 0 exports at the FIN/RST.");

    public static final ConfigOption<Integer> MAX_ACTIVE_FLOWS =
            ConfigOptions.key("flowhouse.packets.max-active-flows")
                    .intType()
                    .defaultValue(2_000_000)
                    .withDescription(
                            "Memory bound: most flows cached per parallel instance. Beyond it a"
                                    + " packet of a new flow is exported at once as a one-packet"
                                    + " flow with end reason 5 (lack of resources) and counted;"
                                    + " 0 is unbounded.");

    public static final ConfigOption<Duration> STATE_TTL =
            ConfigOptions.key("flowhouse.packets.state-ttl")
                    .durationType()
                    .defaultValue(Duration.ofHours(2))
                    .withDescription(
                            "Backstop: flow state untouched this long (processing time) is dropped"
                                    + " even if its timer never fired (a stalled watermark).");

    public static final ConfigOption<String> EXPORTER_ADDRESS =
            ConfigOptions.key("flowhouse.packets.exporter-address")
                    .stringType()
                    .defaultValue("127.0.0.1")
                    .withDescription(
                            "The exporter address packet flows carry (the capture agent's"
                                    + " address); the capture interface index is the observation"
                                    + " domain and in_if.");

    public static final ConfigOption<Duration> MAX_OUT_OF_ORDERNESS =
            ConfigOptions.key("flowhouse.packets.max-out-of-orderness")
                    .durationType()
                    .defaultValue(Duration.ofSeconds(30))
                    .withDescription(
                            "Bounded out-of-orderness of packet timestamps within a partition. The"
                                    + " agent batches packets per flow bucket, so a partition"
                                    + " interleaves batches: live capture stays within the batch"
                                    + " linger, but a pcap replayed at max speed can span the whole"
                                    + " file; set this to the file's span (or replay at --speed 1x)"
                                    + " for exact flows. Packets behind the watermark are counted"
                                    + " in flowhouse_packets_late_total.");

    public static final ConfigOption<Duration> IDLENESS =
            ConfigOptions.key("flowhouse.packets.idleness")
                    .durationType()
                    .defaultValue(Duration.ofMinutes(1))
                    .withDescription(
                            "A packets partition silent this long stops holding back the"
                                    + " watermark.");

    public static final ConfigOption<String> FLOW_TABLE =
            ConfigOptions.key("flowhouse.packets.flow-table")
                    .stringType()
                    .defaultValue("auto")
                    .withDescription(
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

    public static final ConfigOption<Integer> FLOW_TABLE_BUCKETS =
            ConfigOptions.key("flowhouse.packets.flow-table-buckets")
                    .intType()
                    .defaultValue(4096)
                    .withDescription(
                            "Buckets of the bucketed flow table, over all parallel instances (a"
                                    + " multiple of the max parallelism spreads them evenly over"
                                    + " key groups). More buckets: smaller tables to scan when a"
                                    + " bucket's timer fires; fewer: less per-bucket overhead."
                                    + " Changing it moves flows between buckets, so change it only"
                                    + " without restoring packet-flow state.");

    private AgeingOptions() {}
}
