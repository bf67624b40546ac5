// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.pcap.PcapWriter;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Field-level comparison with Wireshark's decoder ({@code tshark -T json}), datagram by datagram
 * and flow by flow; and the IPFIX encoder's output read back by tshark with the same totals.
 */
class TsharkComparisonITCase {

    @BeforeAll
    static void tsharkInstalled() {
        ExternalTool.require("tshark", "-v");
    }

    /** Every flow record of every frame (options data records carry no counters). */
    private static List<List<JsonNode>> tsharkFlows(Path pcap) throws Exception {
        List<List<JsonNode>> frames = new ArrayList<>();
        for (List<JsonNode> records : TsharkCflow.records(pcap)) {
            frames.add(records.stream().filter(r -> counter(r, "cflow.packets") != null).toList());
        }
        return frames;
    }

    private static String text(JsonNode flow, String field) {
        return TsharkCflow.text(flow, field);
    }

    /** A counter field: tshark names 8-byte counters {@code cflow.packets64} / {@code octets64}. */
    private static String counter(JsonNode flow, String field) {
        String v = text(flow, field);
        return v != null ? v : text(flow, field + "64");
    }

    private static long hex(String s) {
        return s.startsWith("0x") ? Long.parseLong(s.substring(2), 16) : Long.parseLong(s);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "netflow-v5-softflowd.pcap",
                "netflow-v9-pmacct.pcap",
                "netflow-v9-nfreplay.pcap",
                "ipfix-softflowd.pcap",
                "ipfix-pmacct.pcap"
            })
    void everyFlowMatchesTshark(String file) throws Exception {
        List<List<JsonNode>> frames = tsharkFlows(CaptureDatagrams.testdata(file));
        List<CaptureDatagrams.Datagram> ds = CaptureDatagrams.datagrams(file);
        assertThat(frames).hasSameSizeAs(ds);
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        int compared = 0;
        for (int i = 0; i < ds.size(); i++) {
            List<FlowRecord> ours =
                    decoder.decode(ds.get(i).buffer(), ds.get(i).context(), cache).records();
            List<JsonNode> theirs = frames.get(i);
            assertThat(ours).as("%s frame %d", file, i + 1).hasSameSizeAs(theirs);
            for (int j = 0; j < ours.size(); j++) {
                compare(
                        file + " frame " + (i + 1) + " flow " + (j + 1),
                        ours.get(j),
                        theirs.get(j));
                compared++;
            }
        }
        assertThat(compared).isPositive();
    }

    private static void compare(String where, FlowRecord r, JsonNode t) {
        String src =
                text(t, "cflow.srcaddr") != null
                        ? text(t, "cflow.srcaddr")
                        : text(t, "cflow.srcaddrv6");
        String dst =
                text(t, "cflow.dstaddr") != null
                        ? text(t, "cflow.dstaddr")
                        : text(t, "cflow.dstaddrv6");
        assertThat(r.srcAddr().toString()).as(where + " src").isEqualTo(src);
        assertThat(r.dstAddr().toString()).as(where + " dst").isEqualTo(dst);
        assertThat(Long.toUnsignedString(r.bytes()))
                .as(where + " octets")
                .isEqualTo(counter(t, "cflow.octets"));
        assertThat(Long.toUnsignedString(r.packets()))
                .as(where + " packets")
                .isEqualTo(counter(t, "cflow.packets"));
        assertThat(r.protocol())
                .as(where + " protocol")
                .isEqualTo(Integer.parseInt(text(t, "cflow.protocol")));
        if (text(t, "cflow.srcport") != null) {
            assertThat(r.srcPort())
                    .as(where + " srcport")
                    .isEqualTo(Integer.parseInt(text(t, "cflow.srcport")));
            int dp = Integer.parseInt(text(t, "cflow.dstport"));
            boolean icmp = r.protocol() == 1 || r.protocol() == 58;
            if (!(icmp && dp == 0)) { // we put the ICMP type/code (IE 32/139) there when it is 0
                assertThat(r.dstPort()).as(where + " dstport").isEqualTo(dp);
            }
        }
        if (text(t, "cflow.tcpflags") != null) {
            assertThat((long) r.tcpFlags())
                    .as(where + " flags")
                    .isEqualTo(hex(text(t, "cflow.tcpflags")));
        }
        if (text(t, "cflow.tos") != null) {
            assertThat((long) r.tos()).as(where + " tos").isEqualTo(hex(text(t, "cflow.tos")));
        }
        if (text(t, "cflow.inputint") != null) {
            assertThat(r.inputInterface())
                    .as(where + " in")
                    .isEqualTo(Long.parseLong(text(t, "cflow.inputint")));
            assertThat(r.outputInterface())
                    .as(where + " out")
                    .isEqualTo(Long.parseLong(text(t, "cflow.outputint")));
        }
        JsonNode times = t.path("cflow.timedelta_tree");
        if (times.has("cflow.abstimestart")) {
            assertThat(tsharkTime(times.get("cflow.abstimestart").asText()))
                    .as(where + " start")
                    .isEqualTo(r.flowStartMillis());
            assertThat(tsharkTime(times.get("cflow.abstimeend").asText()))
                    .as(where + " end")
                    .isEqualTo(r.flowEndMillis());
        }
    }

    /** "Jan 15, 2024 12:00:38.466000000 UTC" to epoch ms. */
    static long tsharkTime(String s) {
        java.time.format.DateTimeFormatter f =
                java.time.format.DateTimeFormatter.ofPattern(
                        "MMM d, yyyy HH:mm:ss.SSSSSSSSS z", Locale.ENGLISH);
        return java.time.ZonedDateTime.parse(s.replace("  ", " "), f).toInstant().toEpochMilli();
    }

    @Test
    void encoderOutputDecodesInTsharkWithTheSameTotals(@TempDir Path dir) throws Exception {
        List<FlowRecord> flows = new ArrayList<>();
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        for (CaptureDatagrams.Datagram d :
                CaptureDatagrams.datagrams("netflow-v9-softflowd.pcap")) {
            flows.addAll(decoder.decode(d.buffer(), d.context(), cache).records());
        }
        Path pcap = dir.resolve("reexport.pcap");
        IpfixEncoder enc = new IpfixEncoder();
        ByteBuffer buf = ByteBuffer.allocate(1400);
        int messages = 0;
        try (PcapWriter w = PcapWriter.create(pcap, false)) {
            int from = 0;
            while (from < flows.size()) {
                buf.clear();
                from +=
                        enc.encodeFlows(
                                buf,
                                42,
                                1_705_320_000L + messages,
                                flows,
                                from,
                                messages % 10 == 0);
                buf.flip();
                w.writeUdp(
                        1_705_320_000_000_000_000L + messages * 1_000_000L,
                        io.flowhouse.codec.flow.IpAddress.parse("127.0.0.1"),
                        50000,
                        io.flowhouse.codec.flow.IpAddress.parse("127.0.0.1"),
                        4739,
                        buf);
                messages++;
            }
        }
        long packets = 0;
        long octets = 0;
        int n = 0;
        for (List<JsonNode> frame : tsharkFlows(pcap)) {
            for (JsonNode f : frame) {
                n++;
                packets += Long.parseLong(counter(f, "cflow.packets"));
                octets += Long.parseLong(counter(f, "cflow.octets"));
            }
        }
        assertThat(Files.size(pcap)).isPositive();
        assertThat(n).isEqualTo(2991);
        assertThat(packets).isEqualTo(42173);
        assertThat(octets).isEqualTo(31011641);
    }
}
