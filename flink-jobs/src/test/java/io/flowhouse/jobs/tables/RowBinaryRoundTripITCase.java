// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;

import com.clickhouse.client.api.insert.InsertSettings;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.stats.ExporterStats;
import io.flowhouse.jobs.stats.ExporterStatsRowEncoder;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.ClickHouseService;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every column type written by the encoders reads back as what was meant, on a real server. */
class RowBinaryRoundTripITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static String db;
    private static ClickHouseConnection conn;
    private static ServerCapabilities caps;

    @BeforeAll
    static void migrate() throws Exception {
        ClickHouseService ch = CLICKHOUSE.service();
        db = ClickHouseTestSupport.freshDatabase("roundtrip");
        conn = new ClickHouseConnection(ClickHouseTestSupport.options(ch, db).build());
        caps = ClickHouseTestSupport.SCHEMA.migrator(conn, db).migrate().capabilities();
    }

    @AfterAll
    static void close() {
        if (conn != null) {
            conn.close();
        }
    }

    @Test
    void flowColumnsRoundTripIncludingEdgeValues() throws Exception {
        FlowRecord v4 = edgeValuesV4();
        FlowRecord v6 =
                v4.toBuilder()
                        .exporterAddress(IpAddress.parse("2001:db8::1"))
                        .ipVersion(6)
                        .srcAddr(IpAddress.parse("2001:db8:ffff::abcd"))
                        .dstAddr(IpAddress.parse("ff02::1"))
                        .nextHop(IpAddress.parse("fe80::1"))
                        .direction(-1)
                        .recordIndex(4)
                        .build();
        RowBinaryOutput out = new RowBinaryOutput(1024);
        FlowRowEncoder enc = new FlowRowEncoder();
        enc.encode(v4, out, caps);
        enc.encode(v6, out, caps);
        conn.insertRowBinary(
                db + ".flows", enc.columns(caps), out.asInputStream(), new InsertSettings());

        String ip = caps.ipv6Type() ? "toString" : "IPv6NumToString";
        String time = caps.dateTime64() ? "toUnixTimestamp64Milli" : "toUnixTimestamp";
        List<List<String>> rows =
                CLICKHOUSE
                        .service()
                        .queryRows(
                                "SELECT "
                                        + String.join(
                                                ", ",
                                                time + "(time_received)",
                                                time + "(flow_start)",
                                                time + "(flow_end)",
                                                time + "(export_time)",
                                                ip + "(exporter)",
                                                "exporter_port",
                                                "observation_domain",
                                                "version",
                                                "sequence_number",
                                                "record_index",
                                                "row_id",
                                                "ip_version",
                                                ip + "(src_addr)",
                                                ip + "(dst_addr)",
                                                ip + "(next_hop)",
                                                "src_prefix_len",
                                                "dst_prefix_len",
                                                "src_port",
                                                "dst_port",
                                                "proto",
                                                "tcp_flags",
                                                "tos",
                                                "bytes",
                                                "packets",
                                                "reverse_bytes",
                                                "reverse_packets",
                                                "in_if",
                                                "out_if",
                                                "vlan",
                                                "post_vlan",
                                                "MACNumToString(src_mac)",
                                                "MACNumToString(dst_mac)",
                                                "src_as",
                                                "dst_as",
                                                "direction",
                                                "flow_end_reason",
                                                "sampling_rate")
                                        + " FROM "
                                        + db
                                        + ".flows ORDER BY record_index");
        assertThat(rows).hasSize(2);
        String secondsOrMillis = caps.dateTime64() ? "1705320002345" : "1705320002";
        assertThat(rows.get(0))
                .containsExactly(
                        secondsOrMillis,
                        caps.dateTime64() ? "1705320000000" : "1705320000",
                        caps.dateTime64() ? "1705320000999" : "1705320000",
                        caps.dateTime64() ? "1705320001000" : "1705320001",
                        "::ffff:192.0.2.1",
                        "65535",
                        "4294967295",
                        "10",
                        "4294967294",
                        "3",
                        Long.toUnsignedString(RowIds.of(v4)),
                        "4",
                        "::ffff:198.51.100.255",
                        "::ffff:0.0.0.1",
                        "::ffff:203.0.113.254",
                        "24",
                        "32",
                        "0",
                        "65535",
                        "255",
                        "511",
                        "184",
                        "18446744073709551615",
                        "9223372036854775808",
                        "12345",
                        "67",
                        "4294967295",
                        "1",
                        "4095",
                        "4094",
                        "00:11:22:33:44:55",
                        "FF:FF:FF:FF:FF:FF",
                        "4200000000",
                        "65000",
                        "1",
                        "3",
                        "1024");
        assertThat(rows.get(1).get(4)).isEqualTo("2001:db8::1");
        assertThat(rows.get(1).get(12)).isEqualTo("2001:db8:ffff::abcd");
        assertThat(rows.get(1).get(13)).isEqualTo("ff02::1");
        assertThat(rows.get(1).get(14)).isEqualTo("fe80::1");
        assertThat(rows.get(1).get(34)).isEqualTo("-1");
        assertThat(rows.get(1).get(10)).isEqualTo(Long.toUnsignedString(RowIds.of(v6)));

        // The readable view renders the same addresses and MACs as text.
        assertThat(
                        CLICKHOUSE
                                .service()
                                .query(
                                        "SELECT exporter_ip, src_ip, src_mac_text FROM "
                                                + db
                                                + ".flows_readable WHERE record_index = 3"))
                .containsExactly("::ffff:192.0.2.1\t::ffff:198.51.100.255\t00:11:22:33:44:55");
    }

    private static FlowRecord edgeValuesV4() {
        return FlowRecord.builder()
                .version(10)
                .exporterAddress(IpAddress.parse("192.0.2.1"))
                .exporterPort(65535)
                .observationDomainId(0xffff_ffffL)
                .sequenceNumber(0xffff_fffeL)
                .recordIndex(3)
                .exportTimeMillis(1_705_320_001_000L)
                .timeReceivedMillis(1_705_320_002_345L)
                .flowStartMillis(1_705_320_000_000L)
                .flowEndMillis(1_705_320_000_999L)
                .ipVersion(4)
                .srcAddr(IpAddress.parse("198.51.100.255"))
                .dstAddr(IpAddress.parse("0.0.0.1"))
                .nextHop(IpAddress.parse("203.0.113.254"))
                .srcPrefixLen(24)
                .dstPrefixLen(32)
                .srcPort(0)
                .dstPort(65535)
                .protocol(255)
                .tcpFlags(0x1ff)
                .tos(0xb8)
                .bytes(-1L) // 2^64 - 1, unsigned
                .packets(1L << 63)
                .reverseBytes(12345)
                .reversePackets(67)
                .inputInterface(0xffff_ffffL)
                .outputInterface(1)
                .vlanId(4095)
                .postVlanId(4094)
                .srcMac(0x0011_2233_4455L)
                .dstMac(0xffff_ffff_ffffL)
                .srcAs(4_200_000_000L)
                .dstAs(65000)
                .direction(1)
                .flowEndReason(3)
                .samplingRate(1024)
                .build();
    }

    @Test
    void exporterStatsRoundTripWithProblemsByKind() throws Exception {
        ExporterStats s =
                new ExporterStats(
                        1_705_320_060_000L,
                        IpAddress.parse("2001:db8::7"),
                        4739,
                        8,
                        10,
                        580,
                        812_345,
                        2995,
                        12,
                        2,
                        0,
                        17,
                        1,
                        3,
                        3,
                        2,
                        Map.of("template_missing", 3L, "odd_field_length", 1L),
                        1_705_320_123_000L);
        ExporterStats later =
                new ExporterStats(
                        s.minuteMillis(),
                        s.exporterAddress(),
                        4739,
                        8,
                        10,
                        600,
                        820_000,
                        3000,
                        12,
                        2,
                        0,
                        17,
                        1,
                        3,
                        3,
                        0,
                        Map.of(),
                        s.updatedAtMillis() + 1);
        RowBinaryOutput out = new RowBinaryOutput(256);
        ExporterStatsRowEncoder enc = new ExporterStatsRowEncoder();
        enc.encode(s, out, caps);
        enc.encode(later, out, caps);
        conn.insertRowBinary(
                db + ".exporter_stats",
                enc.columns(caps),
                out.asInputStream(),
                new InsertSettings());
        String ip = caps.ipv6Type() ? "toString" : "IPv6NumToString";
        List<String> rows =
                CLICKHOUSE
                        .service()
                        .query(
                                "SELECT toUnixTimestamp(minute), "
                                        + ip
                                        + "(exporter), exporter_port, observation_domain, datagrams,"
                                        + " records, lost_records, problem_kinds, problem_counts FROM "
                                        + db
                                        + ".exporter_stats ORDER BY updated_at");
        assertThat(rows)
                .containsExactly(
                        "1705320060\t2001:db8::7\t4739\t8\t580\t2995\t17\t['odd_field_length','template_missing']\t[1,3]",
                        "1705320060\t2001:db8::7\t4739\t8\t600\t3000\t17\t[]\t[]");
        // The newer value replaces the older one for the same exporter and minute.
        assertThat(
                        CLICKHOUSE
                                .service()
                                .query("SELECT datagrams FROM " + db + ".exporter_stats FINAL"))
                .containsExactly("600");
    }
}
