// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.flow.IpAddress;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One exporter scope's counts for one minute (datagram receive time), as the decode step emits them
 * from checkpointed state: the Flink-side form of {@link
 * io.flowhouse.sinks.clickhouse.ExporterStats} (a row of ClickHouse {@code exporter_stats}), with
 * the problem counts as two parallel arrays so the type stays a POJO. A minute is emitted while it
 * runs and once more, complete, when the next minute starts; {@code updatedAtMillis} (the receive
 * time of the latest datagram counted) only grows, so the complete row wins in the
 * ReplacingMergeTree and a replay re-emits the same rows.
 */
public record ExporterStats(
        long minuteMillis,
        IpAddress exporterAddress,
        int exporterPort,
        long observationDomainId,
        int version,
        long datagrams,
        long datagramBytes,
        long records,
        long templateRecords,
        long sequenceGaps,
        long lostDatagrams,
        long lostRecords,
        long sequenceResets,
        long recordsBeforeTemplate,
        long rejectedRecords,
        String[] problemKinds,
        long[] problemCounts,
        long updatedAtMillis) {

    public ExporterStats {
        Objects.requireNonNull(exporterAddress, "exporterAddress");
        if (problemKinds.length != problemCounts.length) {
            throw new IllegalArgumentException(
                    problemKinds.length
                            + " problem kinds, "
                            + problemCounts.length
                            + " counts (expected: equal)");
        }
    }

    public static ExporterStats of(
            IpAddress exporter,
            int port,
            int version,
            long domain,
            ScopeCounters c,
            Map<String, Long> problems) {
        String[] kinds = problems.keySet().stream().sorted().toArray(String[]::new);
        long[] counts = new long[kinds.length];
        for (int i = 0; i < kinds.length; i++) {
            counts[i] = problems.get(kinds[i]);
        }
        return new ExporterStats(
                c.minuteMillis,
                exporter,
                port,
                domain,
                version,
                c.datagrams,
                c.datagramBytes,
                c.records,
                c.templateRecords,
                c.sequenceGaps,
                c.lostDatagrams,
                c.lostRecords,
                c.sequenceResets,
                c.recordsBeforeTemplate,
                c.rejectedRecords,
                kinds,
                counts,
                c.lastReceivedMillis);
    }

    /** Problem counts by kind. */
    public Map<String, Long> problems() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < problemKinds.length; i++) {
            m.put(problemKinds[i], problemCounts[i]);
        }
        return m;
    }

    /** The sink's row type. */
    public io.flowhouse.sinks.clickhouse.ExporterStats toRow() {
        return new io.flowhouse.sinks.clickhouse.ExporterStats(
                minuteMillis,
                exporterAddress,
                exporterPort,
                observationDomainId,
                version,
                datagrams,
                datagramBytes,
                records,
                templateRecords,
                sequenceGaps,
                lostDatagrams,
                lostRecords,
                sequenceResets,
                recordsBeforeTemplate,
                rejectedRecords,
                problems(),
                updatedAtMillis);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExporterStats s && toRow().equals(s.toRow());
    }

    @Override
    public int hashCode() {
        return toRow().hashCode();
    }

    @Override
    public String toString() {
        return "ExporterStats["
                + exporterAddress
                + ":"
                + exporterPort
                + " v"
                + version
                + " domain "
                + observationDomainId
                + " minute "
                + minuteMillis
                + ": "
                + datagrams
                + " datagrams, "
                + records
                + " records, lost "
                + lostDatagrams
                + "/"
                + lostRecords
                + ", resets "
                + sequenceResets
                + ", problems "
                + Arrays.toString(problemKinds)
                + "]";
    }
}
