// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.flow.IpAddress;
import java.io.Serializable;
import java.time.Duration;
import java.util.Locale;
import org.apache.flink.configuration.Configuration;

/**
 * Packet flow ageing settings, checked in one place ({@link AgeingOptions} documents each).
 *
 * @param enabled whether the packets path runs
 * @param topic the packets topic
 * @param biflow biflows (true) or uniflows
 * @param activeTimeout longest flow before it is cut
 * @param idleTimeout longest silence in a flow
 * @param tcpEndTimeout linger after a FIN/RST
 * @param maxActiveFlows flows cached per parallel instance, 0 unbounded
 * @param stateTtl processing-time backstop for state
 * @param exporterAddress exporter address of packet flows
 * @param maxOutOfOrderness out-of-orderness of packet times
 * @param idleness idleness of a partition
 * @param bucketedTable the bucketed flow table (true) or one keyed state entry per flow
 * @param flowTableBuckets buckets of the bucketed flow table
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
        boolean bucketedTable,
        int flowTableBuckets)
        implements Serializable {

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
        if (tcpEndTimeout.isNegative() || maxActiveFlows < 0) {
            throw new IllegalArgumentException(
                    "tcp end timeout "
                            + tcpEndTimeout
                            + ", max active flows "
                            + maxActiveFlows
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

    /** The exporter address packet flows carry. */
    public IpAddress exporter() {
        return IpAddress.parse(exporterAddress);
    }

    public static AgeingSettings defaults() {
        return from(new Configuration());
    }

    public static AgeingSettings from(Configuration conf) {
        String mode = conf.get(AgeingOptions.MODE).trim().toLowerCase(Locale.ROOT);
        if (!mode.equals("uniflow") && !mode.equals("biflow")) {
            throw new IllegalArgumentException(
                    "flow mode " + mode + " (expected: uniflow or biflow)");
        }
        String table = conf.get(AgeingOptions.FLOW_TABLE).trim().toLowerCase(Locale.ROOT);
        if (!table.equals("bucketed") && !table.equals("keyed")) {
            throw new IllegalArgumentException(
                    "flow table " + table + " (expected: bucketed or keyed)");
        }
        return new AgeingSettings(
                conf.get(AgeingOptions.ENABLED),
                conf.get(AgeingOptions.TOPIC),
                mode.equals("biflow"),
                conf.get(AgeingOptions.ACTIVE_TIMEOUT),
                conf.get(AgeingOptions.IDLE_TIMEOUT),
                conf.get(AgeingOptions.TCP_END_TIMEOUT),
                conf.get(AgeingOptions.MAX_ACTIVE_FLOWS),
                conf.get(AgeingOptions.STATE_TTL),
                conf.get(AgeingOptions.EXPORTER_ADDRESS).trim(),
                conf.get(AgeingOptions.MAX_OUT_OF_ORDERNESS),
                conf.get(AgeingOptions.IDLENESS),
                table.equals("bucketed"),
                conf.get(AgeingOptions.FLOW_TABLE_BUCKETS));
    }

    /** A copy with other timeouts (tests, benchmarks). */
    public AgeingSettings withTimeouts(Duration active, Duration idle, Duration tcpEnd) {
        return new AgeingSettings(
                enabled,
                topic,
                biflow,
                active,
                idle,
                tcpEnd,
                maxActiveFlows,
                stateTtl.compareTo(active.plus(idle)) > 0
                        ? stateTtl
                        : active.plus(idle).multipliedBy(2),
                exporterAddress,
                maxOutOfOrderness,
                idleness,
                bucketedTable,
                flowTableBuckets);
    }

    public AgeingSettings withBiflow(boolean bi) {
        return new AgeingSettings(
                enabled,
                topic,
                bi,
                activeTimeout,
                idleTimeout,
                tcpEndTimeout,
                maxActiveFlows,
                stateTtl,
                exporterAddress,
                maxOutOfOrderness,
                idleness,
                bucketedTable,
                flowTableBuckets);
    }

    public AgeingSettings withMaxActiveFlows(int max) {
        return new AgeingSettings(
                enabled,
                topic,
                biflow,
                activeTimeout,
                idleTimeout,
                tcpEndTimeout,
                max,
                stateTtl,
                exporterAddress,
                maxOutOfOrderness,
                idleness,
                bucketedTable,
                flowTableBuckets);
    }

    /** A copy with the other flow table (tests run both). */
    public AgeingSettings withFlowTable(boolean bucketed, int buckets) {
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
                bucketed,
                buckets);
    }
}
