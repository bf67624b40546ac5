// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.config.Config;
import io.flowhouse.config.ConfigResolver;
import java.io.Serializable;
import java.time.Duration;
import java.util.Locale;
import java.util.function.Consumer;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.configuration.StateChangelogOptions;

/**
 * Packet flow ageing settings, checked in one place ({@link AgeingConfigKeys} documents each).
 *
 * @param enabled whether the packets path runs
 * @param topic the packets topic
 * @param biflow biflows (true) or uniflows
 * @param activeTimeout longest flow before it is cut
 * @param idleTimeout longest silence in a flow
 * @param tcpEndTimeout linger after a FIN/RST
 * @param maxActiveFlows flows cached (bucketed table: over the job, split over the buckets; keyed
 *     table: per parallel instance), 0 unbounded
 * @param stateTtl processing-time backstop for state
 * @param exporterAddress exporter address of packet flows
 * @param maxOutOfOrderness out-of-orderness of packet times
 * @param idleness idleness of a partition
 * @param flowTable the flow table: bucketed, keyed, or chosen by the state backend ({@link
 *     #bucketedTable(ReadableConfig)})
 * @param flowTableBuckets buckets of the bucketed flow table
 * @param sflowSamples whether sFlow flow samples are aged into flows
 * @param sflowSamplesMaxActiveFlows sFlow sample flows held per parallel instance, 0 unbounded
 */
public record AgeingSettings(
        boolean enabled,
        String topic,
        boolean biflow,
        Duration activeTimeout,
        Duration idleTimeout,
        Duration tcpEndTimeout,
        int maxActiveFlows,
        Duration stateTtl,
        String exporterAddress,
        Duration maxOutOfOrderness,
        Duration idleness,
        FlowTableChoice flowTable,
        int flowTableBuckets,
        boolean sflowSamples,
        int sflowSamplesMaxActiveFlows)
        implements Serializable {

    /** {@code flowhouse.packets.flow-table}. */
    public enum FlowTableChoice {
        /** Bucketed on the heap (hash-map) state backend, keyed on any other. */
        AUTO,
        /** {@link BucketedFlowAgeingFunction}: one table of flows per hash bucket. */
        BUCKETED,
        /** {@link FlowAgeingFunction}: one keyed state entry and timer per flow. */
        KEYED
    }

    private static final long serialVersionUID = 1L;

    public AgeingSettings {
        if (activeTimeout.toMillis() < 1 || idleTimeout.toMillis() < 1) {
            throw new IllegalArgumentException(
                    "active timeout "
                            + activeTimeout
                            + ", idle timeout "
                            + idleTimeout
                            + " (expected: >= 1 ms)");
        }
        if (tcpEndTimeout.isNegative() || maxActiveFlows < 0 || sflowSamplesMaxActiveFlows < 0) {
            throw new IllegalArgumentException(
                    "tcp end timeout "
                            + tcpEndTimeout
                            + ", max active flows "
                            + maxActiveFlows
                            + ", sFlow sample flows "
                            + sflowSamplesMaxActiveFlows
                            + " (expected: >= 0)");
        }
        IpAddress.parse(exporterAddress);
        if (flowTableBuckets < 1) {
            throw new IllegalArgumentException(
                    "flow table buckets " + flowTableBuckets + " (expected: >= 1)");
        }
        if (stateTtl.compareTo(activeTimeout.plus(idleTimeout)) <= 0) {
            throw new IllegalArgumentException(
                    "state TTL "
                            + stateTtl
                            + " (expected: > active + idle timeout, it is only a backstop)");
        }
    }

    /** Settings that leave sFlow samples one row each ({@code packets.sflow-samples} false). */
    public AgeingSettings(
            boolean enabled,
            String topic,
            boolean biflow,
            Duration activeTimeout,
            Duration idleTimeout,
            Duration tcpEndTimeout,
            int maxActiveFlows,
            Duration stateTtl,
            String exporterAddress,
            Duration maxOutOfOrderness,
            Duration idleness,
            FlowTableChoice flowTable,
            int flowTableBuckets) {
        this(
                enabled,
                topic,
                biflow,
                activeTimeout,
                idleTimeout,
                tcpEndTimeout,
                maxActiveFlows,
                stateTtl,
                exporterAddress,
                maxOutOfOrderness,
                idleness,
                flowTable,
                flowTableBuckets,
                false,
                AgeingConfigKeys.SFLOW_SAMPLES_MAX_ACTIVE_FLOWS.defaultValue());
    }

    /** The exporter address packet flows carry. */
    public IpAddress exporter() {
        return IpAddress.parse(exporterAddress);
    }

    public static AgeingSettings defaults() {
        return from(ConfigResolver.of(AgeingConfigKeys.SCHEMA).resolve());
    }

    /** The settings of a configuration that holds the {@link AgeingConfigKeys}. */
    public static AgeingSettings from(Config c) {
        return new AgeingSettings(
                c.get(AgeingConfigKeys.ENABLED),
                c.get(AgeingConfigKeys.TOPIC),
                c.get(AgeingConfigKeys.MODE).equals("biflow"),
                c.get(AgeingConfigKeys.ACTIVE_TIMEOUT),
                c.get(AgeingConfigKeys.IDLE_TIMEOUT),
                c.get(AgeingConfigKeys.TCP_END_TIMEOUT),
                c.get(AgeingConfigKeys.MAX_ACTIVE_FLOWS),
                c.get(AgeingConfigKeys.STATE_TTL),
                c.get(AgeingConfigKeys.EXPORTER_ADDRESS).trim(),
                c.get(AgeingConfigKeys.MAX_OUT_OF_ORDERNESS),
                c.get(AgeingConfigKeys.IDLENESS),
                c.get(AgeingConfigKeys.FLOW_TABLE),
                c.get(AgeingConfigKeys.FLOW_TABLE_BUCKETS),
                c.get(AgeingConfigKeys.SFLOW_SAMPLES),
                c.get(AgeingConfigKeys.SFLOW_SAMPLES_MAX_ACTIVE_FLOWS));
    }

    /**
     * Whether the job runs the bucketed flow table, given the Flink configuration it runs with (the
     * job's execution environment: the client's Flink configuration plus the job's own keys).
     * {@code auto} picks the bucketed table on the heap (hash-map) state backend ({@code
     * state.backend.type}, Flink's default), where tables are updated in place, and the keyed one
     * on RocksDB, ForSt or any other backend, and with the changelog backend ({@code
     * state.changelog.enabled}): there every state access (de)serializes or logs the whole value,
     * which for the bucketed table is a table of flows per packet.
     */
    public boolean bucketedTable(ReadableConfig flink) {
        return switch (flowTable) {
            case BUCKETED -> true;
            case KEYED -> false;
            case AUTO -> heapBackend(flink);
        };
    }

    /** {@link #bucketedTable(ReadableConfig)} with Flink's defaults (heap backend). */
    public boolean bucketedTable() {
        return bucketedTable(new Configuration());
    }

    /** Whether {@code flink} selects the heap state backend, without the changelog. */
    static boolean heapBackend(ReadableConfig flink) {
        String backend = flink.get(StateBackendOptions.STATE_BACKEND).trim();
        return backend.toLowerCase(Locale.ROOT).equals("hashmap")
                && !flink.get(StateChangelogOptions.ENABLE_STATE_CHANGE_LOG);
    }

    /** A copy with other timeouts (tests, benchmarks). */
    public AgeingSettings withTimeouts(Duration active, Duration idle, Duration tcpEnd) {
        return with(
                c -> {
                    c.activeTimeout = active;
                    c.idleTimeout = idle;
                    c.tcpEndTimeout = tcpEnd;
                    if (stateTtl.compareTo(active.plus(idle)) <= 0) {
                        c.stateTtl = active.plus(idle).multipliedBy(2);
                    }
                });
    }

    public AgeingSettings withBiflow(boolean bi) {
        return with(c -> c.biflow = bi);
    }

    public AgeingSettings withMaxActiveFlows(int max) {
        return with(c -> c.maxActiveFlows = max);
    }

    /** A copy with sFlow samples aged into flows, at most {@code max} per instance (tests). */
    public AgeingSettings withSflowSamples(boolean on, int max) {
        return with(
                c -> {
                    c.sflowSamples = on;
                    c.sflowSamplesMaxActiveFlows = max;
                });
    }

    /** A copy with the other flow table (tests run both). */
    public AgeingSettings withFlowTable(boolean bucketed, int buckets) {
        return with(
                c -> {
                    c.flowTable = bucketed ? FlowTableChoice.BUCKETED : FlowTableChoice.KEYED;
                    c.flowTableBuckets = buckets;
                });
    }

    /** A copy with {@code change} applied to these settings' fields, checked again. */
    private AgeingSettings with(Consumer<Fields> change) {
        Fields c = new Fields(this);
        change.accept(c);
        return c.settings();
    }

    /** The fields of a settings record, to change some of them for a copy. */
    private static final class Fields {
        boolean enabled;
        String topic;
        boolean biflow;
        Duration activeTimeout;
        Duration idleTimeout;
        Duration tcpEndTimeout;
        int maxActiveFlows;
        Duration stateTtl;
        String exporterAddress;
        Duration maxOutOfOrderness;
        Duration idleness;
        FlowTableChoice flowTable;
        int flowTableBuckets;
        boolean sflowSamples;
        int sflowSamplesMaxActiveFlows;

        Fields(AgeingSettings s) {
            enabled = s.enabled;
            topic = s.topic;
            biflow = s.biflow;
            activeTimeout = s.activeTimeout;
            idleTimeout = s.idleTimeout;
            tcpEndTimeout = s.tcpEndTimeout;
            maxActiveFlows = s.maxActiveFlows;
            stateTtl = s.stateTtl;
            exporterAddress = s.exporterAddress;
            maxOutOfOrderness = s.maxOutOfOrderness;
            idleness = s.idleness;
            flowTable = s.flowTable;
            flowTableBuckets = s.flowTableBuckets;
            sflowSamples = s.sflowSamples;
            sflowSamplesMaxActiveFlows = s.sflowSamplesMaxActiveFlows;
        }

        AgeingSettings settings() {
            return new AgeingSettings(
                    enabled,
                    topic,
                    biflow,
                    activeTimeout,
                    idleTimeout,
                    tcpEndTimeout,
                    maxActiveFlows,
                    stateTtl,
                    exporterAddress,
                    maxOutOfOrderness,
                    idleness,
                    flowTable,
                    flowTableBuckets,
                    sflowSamples,
                    sflowSamplesMaxActiveFlows);
        }
    }
}
