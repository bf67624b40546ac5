// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.stats;

import io.flowhouse.codec.flow.IpAddress;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One exporter scope's counts for one minute, a row of {@code flowhouse.exporter_stats} (migrations
 * V002, V005, V006, V008, written by {@link ExporterStatsRowEncoder}), and the value {@link
 * AggregateExporterStats} emits. The job emits a minute while it runs and once more, complete, when
 * the next minute starts; {@code updatedAtMillis} ({@link ScopeCounters#rowVersion}) grows with
 * every change of the counts, so a later value for the same exporter, domain, version and minute
 * replaces the earlier one (the higher {@code updatedAtMillis} wins, whatever the insert order) and
 * re-emitting after a replay never double counts.
 *
 * <p>The problem counts are two parallel arrays, sorted by kind, so the type is a Flink POJO
 * (records with arrays serialize without Kryo); {@link #problems()} gives them as a map.
 *
 * @param minuteMillis start of the minute, epoch ms
 * @param exporterAddress exporter address
 * @param exporterPort exporter UDP source port
 * @param observationDomainId IPFIX observation domain / v9 source id / v5 engine
 * @param version 5, 9 or 10 (0: datagrams that did not decode at all)
 * @param datagrams datagrams received
 * @param datagramBytes their bytes
 * @param records flow (data) records decoded
 * @param templateRecords template and options-template records seen
 * @param sequenceGaps how many times the sequence number jumped forward
 * @param lostDatagrams datagrams missing by the sequence numbers (NetFlow v9 counts datagrams)
 * @param lostRecords records missing by the sequence numbers (v5 and IPFIX count records)
 * @param sequenceResets times the sequence went backwards (an exporter restart)
 * @param recordsBeforeTemplate data records that arrived before their template
 * @param rejectedRecords records sent to the dead-letter topic
 * @param duplicateDatagrams datagrams that arrived again (re-sends, by their stamp): dropped before
 *     decoding and counted only here
 * @param lostSamples sFlow: flow samples missing by their data sources' sample sequence numbers
 * @param sampleDrops sFlow: samples the agent dropped, by the increase of its drops counters
 * @param problemKinds decode problem kinds, sorted
 * @param problemCounts the count of each kind
 * @param updatedAtMillis when this value was computed; the version for ReplacingMergeTree
 * @param exporterName the exporter's name from enrichment (rules file, SNMP sysName), or ''
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
        long duplicateDatagrams,
        long lostSamples,
        long sampleDrops,
        String[] problemKinds,
        long[] problemCounts,
        long updatedAtMillis,
        String exporterName) {

    public ExporterStats {
        Objects.requireNonNull(exporterAddress, "exporterAddress");
        Objects.requireNonNull(exporterName, "exporterName");
        if (problemKinds.length != problemCounts.length) {
            throw new IllegalArgumentException(
                    problemKinds.length
                            + " problem kinds, "
                            + problemCounts.length
                            + " counts (expected: equal)");
        }
        if (!isSorted(problemKinds)) {
            TreeMap<String, Long> sorted = new TreeMap<>();
            for (int i = 0; i < problemKinds.length; i++) {
                sorted.merge(problemKinds[i], problemCounts[i], Long::sum);
            }
            problemKinds = sorted.keySet().toArray(String[]::new);
            problemCounts = sorted.values().stream().mapToLong(Long::longValue).toArray();
        }
    }

    /** With the problem counts as a map, without sFlow sample accounting. */
    public ExporterStats(
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
            long duplicateDatagrams,
            Map<String, Long> problems,
            long updatedAtMillis) {
        this(
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
                duplicateDatagrams,
                0L,
                0L,
                problems,
                updatedAtMillis);
    }

    /** With the problem counts as a map. */
    public ExporterStats(
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
            long duplicateDatagrams,
            long lostSamples,
            long sampleDrops,
            Map<String, Long> problems,
            long updatedAtMillis) {
        this(
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
                duplicateDatagrams,
                lostSamples,
                sampleDrops,
                new TreeMap<>(problems).keySet().toArray(String[]::new),
                new TreeMap<>(problems).values().stream().mapToLong(Long::longValue).toArray(),
                updatedAtMillis,
                "");
    }

    /** The same row with the exporter's name. */
    public ExporterStats withExporterName(String name) {
        return name.equals(exporterName)
                ? this
                : new ExporterStats(
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
                        duplicateDatagrams,
                        lostSamples,
                        sampleDrops,
                        problemKinds,
                        problemCounts,
                        updatedAtMillis,
                        name);
    }

    /** Problem counts by kind, in kind order. */
    public Map<String, Long> problems() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (int i = 0; i < problemKinds.length; i++) {
            m.put(problemKinds[i], problemCounts[i]);
        }
        return m;
    }

    private static boolean isSorted(String[] kinds) {
        for (int i = 1; i < kinds.length; i++) {
            if (kinds[i - 1].compareTo(kinds[i]) >= 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExporterStats s
                && minuteMillis == s.minuteMillis
                && exporterAddress.equals(s.exporterAddress)
                && exporterPort == s.exporterPort
                && observationDomainId == s.observationDomainId
                && version == s.version
                && datagrams == s.datagrams
                && datagramBytes == s.datagramBytes
                && records == s.records
                && templateRecords == s.templateRecords
                && sequenceGaps == s.sequenceGaps
                && lostDatagrams == s.lostDatagrams
                && lostRecords == s.lostRecords
                && sequenceResets == s.sequenceResets
                && recordsBeforeTemplate == s.recordsBeforeTemplate
                && rejectedRecords == s.rejectedRecords
                && duplicateDatagrams == s.duplicateDatagrams
                && lostSamples == s.lostSamples
                && sampleDrops == s.sampleDrops
                && Arrays.equals(problemKinds, s.problemKinds)
                && Arrays.equals(problemCounts, s.problemCounts)
                && updatedAtMillis == s.updatedAtMillis
                && exporterName.equals(s.exporterName);
    }

    @Override
    public int hashCode() {
        int h =
                Objects.hash(
                        minuteMillis,
                        exporterAddress,
                        exporterPort,
                        observationDomainId,
                        version,
                        datagrams,
                        records,
                        lostDatagrams,
                        lostRecords,
                        sequenceResets,
                        updatedAtMillis);
        return 31 * (31 * h + Arrays.hashCode(problemKinds)) + Arrays.hashCode(problemCounts);
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
                + (duplicateDatagrams == 0 ? "" : ", duplicates " + duplicateDatagrams)
                + (lostSamples == 0 && sampleDrops == 0
                        ? ""
                        : ", lost samples " + lostSamples + ", drops " + sampleDrops)
                + ", problems "
                + problems()
                + ", updated "
                + updatedAtMillis
                + "]";
    }
}
