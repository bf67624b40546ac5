// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import io.flowhouse.codec.flow.IpAddress;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One exporter's counts for one minute, a row of {@code flowhouse.exporter_stats} (migration V002).
 * The decode job emits the complete counts of a minute; a later value for the same exporter and
 * minute replaces the earlier one (the higher {@code updatedAtMillis} wins), so re-emitting after a
 * replay never double counts.
 *
 * @param minuteMillis start of the minute, epoch ms (event time)
 * @param exporterAddress exporter address
 * @param exporterPort exporter UDP source port
 * @param observationDomainId IPFIX observation domain / v9 source id / v5 engine
 * @param version 5, 9 or 10
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
 * @param problems decode problems by kind (sorted by kind when written)
 * @param updatedAtMillis when this value was computed; the version for ReplacingMergeTree
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
        Map<String, Long> problems,
        long updatedAtMillis) {

    public ExporterStats {
        Objects.requireNonNull(exporterAddress, "exporterAddress");
        problems = Map.copyOf(Objects.requireNonNull(problems, "problems"));
    }

    /** The row encoder for {@code exporter_stats}. */
    public static final class Encoder implements ClickHouseRowEncoder<ExporterStats> {

        private static final long serialVersionUID = 1L;

        public static final java.util.List<String> COLUMNS =
                java.util.List.of(
                        "minute",
                        "exporter",
                        "exporter_port",
                        "observation_domain",
                        "version",
                        "datagrams",
                        "datagram_bytes",
                        "records",
                        "template_records",
                        "sequence_gaps",
                        "lost_datagrams",
                        "lost_records",
                        "sequence_resets",
                        "records_before_template",
                        "rejected_records",
                        "problem_kinds",
                        "problem_counts",
                        "updated_at");

        @Override
        public String table() {
            return "exporter_stats";
        }

        @Override
        public java.util.List<String> columns(ServerCapabilities caps) {
            return COLUMNS;
        }

        @Override
        public void encode(ExporterStats s, RowBinaryOutput out, ServerCapabilities caps) {
            out.dateTime(s.minuteMillis());
            out.ipv6(s.exporterAddress());
            out.uint16(s.exporterPort());
            out.uint32(s.observationDomainId());
            out.uint8(s.version());
            out.uint64(s.datagrams());
            out.uint64(s.datagramBytes());
            out.uint64(s.records());
            out.uint64(s.templateRecords());
            out.uint64(s.sequenceGaps());
            out.uint64(s.lostDatagrams());
            out.uint64(s.lostRecords());
            out.uint64(s.sequenceResets());
            out.uint64(s.recordsBeforeTemplate());
            out.uint64(s.rejectedRecords());
            TreeMap<String, Long> sorted = new TreeMap<>(s.problems());
            out.stringArray(java.util.List.copyOf(sorted.keySet()));
            out.uint64Array(sorted.values().stream().mapToLong(Long::longValue).toArray());
            out.uint64(s.updatedAtMillis());
        }
    }
}
