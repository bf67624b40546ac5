// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.FlowRecordText;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sample by sample against two decoders nobody here wrote: goflow2 v2.2.6's JSON and sfcapd 1.7.1's
 * decode ({@code nfdump -o csv}), both made from the same captures (shared/testdata/golden,
 * replayed over loopback in capture order). Each flow sample is one line in both; the i-th record
 * we decode must carry the i-th line's addresses, ports, protocol, VLANs, interfaces, MACs, ToS,
 * TCP flags, frame length and sampling rate (and, for goflow2, agent and datagram sequence).
 */
class SflowPeerGoldenTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    static List<FlowRecord> decode(String capture) throws Exception {
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        List<FlowRecord> out = new ArrayList<>();
        for (CaptureDatagrams.Datagram d : CaptureDatagrams.datagrams(capture)) {
            out.addAll(decoder.decode(d.buffer(), d.context(), cache).records());
        }
        return out;
    }

    static List<String> golden(String name) throws IOException {
        try (BufferedReader r =
                new BufferedReader(
                        new InputStreamReader(
                                new GZIPInputStream(
                                        Files.newInputStream(
                                                CaptureDatagrams.testdata("golden/" + name))),
                                StandardCharsets.UTF_8))) {
            return r.lines().toList();
        }
    }

    private static String capture(String name) {
        return name.equals("sflow-pmacct-rate1") ? name + ".pcap.gz" : name + ".pcap";
    }

    @ParameterizedTest
    @ValueSource(strings = {"sflow-pmacct-rate1", "sflow-ovs-rate10"})
    void everySampleMatchesGoflow2(String name) throws Exception {
        List<FlowRecord> ours = decode(capture(name));
        List<String> lines = golden(name + ".goflow2.jsonl.gz");
        assertThat(ours).hasSameSizeAs(lines);
        for (int i = 0; i < lines.size(); i++) {
            JsonNode g = JSON.readTree(lines.get(i));
            FlowRecord f = ours.get(i);
            String at = name + " sample " + i + ": " + lines.get(i);
            assertThat(g.get("type").asText()).isEqualTo("SFLOW_5");
            assertThat(f.sflow().agentAddress())
                    .as(at)
                    .isEqualTo(IpAddress.parse(g.get("sampler_address").asText()));
            assertThat(f.sequenceNumber()).as(at).isEqualTo(g.get("sequence_num").asLong());
            assertThat(f.samplingRate()).as(at).isEqualTo(g.get("sampling_rate").asLong());
            assertThat(f.bytes()).as(at).isEqualTo(g.get("bytes").asLong());
            assertThat(f.packets()).as(at).isEqualTo(g.get("packets").asLong());
            assertThat(f.srcAddr()).as(at).isEqualTo(IpAddress.parse(g.get("src_addr").asText()));
            assertThat(f.dstAddr()).as(at).isEqualTo(IpAddress.parse(g.get("dst_addr").asText()));
            assertThat(f.ipVersion() == 4 ? "IPv4" : "IPv6")
                    .as(at)
                    .isEqualTo(g.get("etype").asText());
            assertThat(protocolName(f.protocol())).as(at).isEqualTo(g.get("proto").asText());
            assertThat(f.srcPort()).as(at).isEqualTo(g.get("src_port").asInt());
            if (f.protocol() != 1 && f.protocol() != 58) {
                // ICMP: we keep type*256+code in the destination port, as NetFlow does; goflow2
                // writes 0 there (and its icmp_type reads 0 for echo requests too).
                assertThat(f.dstPort()).as(at).isEqualTo(g.get("dst_port").asInt());
            }
            assertThat(f.inputInterface()).as(at).isEqualTo(g.get("in_if").asLong());
            assertThat(f.outputInterface()).as(at).isEqualTo(g.get("out_if").asLong());
            assertThat(f.vlanId()).as(at).isEqualTo(g.get("src_vlan").asInt());
            assertThat(f.postVlanId()).as(at).isEqualTo(g.get("dst_vlan").asInt());
            assertThat(FlowRecordText.mac(f.srcMac())).as(at).isEqualTo(g.get("src_mac").asText());
            assertThat(FlowRecordText.mac(f.dstMac())).as(at).isEqualTo(g.get("dst_mac").asText());
            assertThat(f.tos()).as(at).isEqualTo(g.get("ip_tos").asInt());
            assertThat(f.tcpFlags()).as(at).isEqualTo(g.get("tcp_flags").asInt());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"sflow-pmacct-rate1", "sflow-ovs-rate10"})
    void everySampleMatchesSfcapd(String name) throws Exception {
        List<FlowRecord> ours = decode(capture(name));
        List<String> lines = golden(name + ".nfdump.csv.gz");
        List<String> header = List.of(lines.get(0).split(","));
        int sa = header.indexOf("sa");
        int da = header.indexOf("da");
        int sp = header.indexOf("sp");
        int dp = header.indexOf("dp");
        int pr = header.indexOf("pr");
        int flg = header.indexOf("flg");
        int stos = header.indexOf("stos");
        int ipkt = header.indexOf("ipkt");
        int ibyt = header.indexOf("ibyt");
        int in = header.indexOf("in");
        int out = header.indexOf("out");
        int svln = header.indexOf("svln");
        int dvln = header.indexOf("dvln");
        int ismc = header.indexOf("ismc");
        int odmc = header.indexOf("odmc");
        List<String[]> rows = new ArrayList<>();
        for (String l : lines.subList(1, lines.size())) {
            // nfdump ends its CSV with summary lines; flows have every column.
            String[] c = l.split(",", -1);
            if (c.length == header.size()) {
                rows.add(c);
            }
        }
        assertThat(ours).hasSameSizeAs(rows);
        for (int i = 0; i < rows.size(); i++) {
            String[] c = rows.get(i);
            FlowRecord f = ours.get(i);
            String at = name + " sample " + i + ": " + String.join(",", c);
            assertThat(f.srcAddr()).as(at).isEqualTo(IpAddress.parse(c[sa]));
            assertThat(f.dstAddr()).as(at).isEqualTo(IpAddress.parse(c[da]));
            assertThat(protocolName(f.protocol()).replace("IPv6-ICMP", "ICMP6"))
                    .as(at)
                    .isEqualTo(c[pr].trim());
            if (f.protocol() == 1) {
                // nfdump shows ICMP type and code in the port columns.
                assertThat(f.dstPort() >>> 8).as(at).isEqualTo(Integer.parseInt(c[sp]));
                assertThat(f.dstPort() & 0xff).as(at).isEqualTo(Integer.parseInt(c[dp]));
            } else if (f.protocol() == 58) {
                // sfcapd leaves the ports of ICMPv6 samples at 0 (all 406 echo requests and
                // replies of the trace); we keep type*256+code, as for ICMP.
                assertThat(f.dstPort() >>> 8).as(at).isIn(128, 129);
                assertThat(c[sp] + "/" + c[dp]).as(at).isEqualTo("0/0");
            } else {
                assertThat(f.srcPort()).as(at).isEqualTo(Integer.parseInt(c[sp]));
                assertThat(f.dstPort()).as(at).isEqualTo(Integer.parseInt(c[dp]));
            }
            assertThat(FlowRecordText.tcpFlags(f.tcpFlags())).as(at).isEqualTo(c[flg]);
            assertThat(f.tos()).as(at).isEqualTo(Integer.parseInt(c[stos]));
            // sfcapd scales by the sampling rate.
            assertThat(f.packets() * f.samplingRate()).as(at).isEqualTo(Long.parseLong(c[ipkt]));
            assertThat(f.bytes() * f.samplingRate()).as(at).isEqualTo(Long.parseLong(c[ibyt]));
            assertThat(f.inputInterface()).as(at).isEqualTo(Long.parseLong(c[in]));
            assertThat(f.outputInterface()).as(at).isEqualTo(Long.parseLong(c[out]));
            assertThat(f.vlanId()).as(at).isEqualTo(Integer.parseInt(c[svln]));
            assertThat(f.postVlanId()).as(at).isEqualTo(Integer.parseInt(c[dvln]));
            assertThat(FlowRecordText.mac(f.srcMac())).as(at).isEqualTo(c[ismc]);
            assertThat(FlowRecordText.mac(f.dstMac())).as(at).isEqualTo(c[odmc]);
        }
    }

    private static String protocolName(int p) {
        switch (p) {
            case 1:
                return "ICMP";
            case 6:
                return "TCP";
            case 17:
                return "UDP";
            case 47:
                return "GRE";
            case 50:
                return "ESP";
            case 58:
                return "IPv6-ICMP";
            default:
                return Integer.toString(p);
        }
    }
}
