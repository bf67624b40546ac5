// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.pcap.PcapWriter;
import io.flowhouse.testkit.TestDataDir;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Runs the decode command on the test captures and checks output against the ground truth. */
class DecodeCommandTest {

    private static final Pattern OCTETS =
            Pattern.compile("\"(?:reverse)?(?:O|o)ctetDeltaCount\":(\\d+)");
    private static final Pattern PACKETS =
            Pattern.compile("\"(?:reverse)?(?:P|p)acketDeltaCount\":(\\d+)");

    private record Run(int code, String out, String err) {}

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = DecodeCommand.run(args, o, e);
        }
        return new Run(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "netflow-v5-softflowd.pcap, 2279, 30012, 21699804",
        "netflow-v9-softflowd.pcap, 2991, 42173, 31011641",
        "ipfix-pmacct.pcap, 2995, 42173, 31011641",
        "ipfix-biflow-softflowd.pcap, 1673, 42173, 31011641",
    })
    void jsonLinesSumToGroundTruth(String file, int records, long packets, long bytes) {
        Run r = run(TestDataDir.file(file).toString());
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(records);
        long p = 0;
        long b = 0;
        for (String line : lines) {
            assertThat(line).startsWith("{\"exporter\":\"127.0.0.1:").endsWith("}");
            assertThat(line)
                    .contains(
                            "\"version\":", "\"observationDomainId\":", "\"protocolIdentifier\":");
            assertThat(line).containsAnyOf("\"sourceIPv4Address\":", "\"sourceIPv6Address\":");
            assertThat(line).contains("\"flowStartMilliseconds\":17053");
            Matcher m = OCTETS.matcher(line);
            while (m.find()) {
                b += Long.parseLong(m.group(1));
            }
            m = PACKETS.matcher(line);
            while (m.find()) {
                p += Long.parseLong(m.group(1));
            }
        }
        assertThat(p).isEqualTo(packets);
        assertThat(b).isEqualTo(bytes);
        assertThat(r.err())
                .contains(records + " flows, " + packets + " packets, " + bytes + " bytes")
                .contains("templates: ")
                .contains("problems: ");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "sflow-pmacct-rate1.pcap.gz, 5770, 42173, 3, 3, 31803431, 192.0.2.1",
        "sflow-ovs-rate10.pcap, 588, 4215, 9, 6, 3231726, 192.0.2.2",
    })
    void sflowFlowSamplesAndCounterSamples(
            String file,
            int datagrams,
            int flowSamples,
            int counterSamples,
            int withInterfaceCounters,
            long bytes,
            String agent) {
        Run r = run(TestDataDir.file(file).toString());
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        List<String> flows = lines.stream().filter(l -> !l.contains("Counters\":{")).toList();
        List<String> counters = lines.stream().filter(l -> l.contains("Counters\":{")).toList();
        assertThat(flows).hasSize(flowSamples);
        assertThat(counters).hasSize(withInterfaceCounters);
        long p = 0;
        long b = 0;
        for (String line : flows) {
            assertThat(line)
                    .contains(
                            "\"version\":105",
                            "\"sflowAgent\":\"" + agent + "\"",
                            "\"sflowSampleSequence\":",
                            "\"sflowSourceIdIndex\":",
                            "\"sflowSamplePool\":",
                            "\"sflowDrops\":0",
                            "\"ingressInterface\":",
                            "\"egressInterface\":");
            Matcher m = OCTETS.matcher(line);
            while (m.find()) {
                b += Long.parseLong(m.group(1));
            }
            m = PACKETS.matcher(line);
            while (m.find()) {
                p += Long.parseLong(m.group(1));
            }
        }
        assertThat(p).as("one packet per sample").isEqualTo(flowSamples);
        assertThat(b).as("sampled frame lengths").isEqualTo(bytes);
        assertThat(counters.get(counters.size() - 1))
                .contains(
                        "\"sflowAgent\":\"" + agent + "\"", "\"interfaceCounters\":{\"ifIndex\":");
        assertThat(String.join("\n", counters)).contains("\"ifInUcastPkts\":42173");
        assertThat(r.err())
                .contains("sFlow v5 " + datagrams)
                .contains(
                        flowSamples
                                + " flow samples, "
                                + counterSamples
                                + " counter samples ("
                                + withInterfaceCounters
                                + " with interface counters)")
                .contains("0 samples missing")
                .contains("sequence: 0 units missing");
    }

    @Test
    void sflowTableShowsAgentRateInterfacesAndCounters() {
        Run r = run(TestDataDir.file("sflow-ovs-rate10.pcap").toString(), "--format", "table");
        assertThat(r.code()).as(r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(1 + 4215 + 6);
        assertThat(lines.get(1)).contains("sflow agent 192.0.2.2/0 rate 1:10 if 1->2");
        List<String> counters = lines.stream().filter(l -> l.startsWith("counters ")).toList();
        assertThat(counters).hasSize(6);
        assertThat(counters.get(counters.size() - 2))
                .startsWith("counters agent 192.0.2.2/0 if 1 seq 3")
                .contains("in 31634739 octets 42173/");
        assertThat(counters.get(counters.size() - 1)).contains("out 31634739 octets 42173/");
    }

    @Test
    void vrfIdsAndTheirNamesFromOptionsData(@TempDir Path dir) throws Exception {
        // IPFIX: data template 256 (sourceIPv4Address, destinationIPv4Address, octetDeltaCount,
        // ingressVRFID, egressVRFID), options template 310 (ingressVRFID scope, VRFname), then
        // the VRF names and one flow from VRF 10 to VRF 1.
        ByteBuffer m = ByteBuffer.allocate(512);
        m.putShort((short) 10).putShort((short) 0).putInt(1_705_320_000).putInt(0).putInt(3);
        m.putShort((short) 2).putShort((short) 28).putShort((short) 256).putShort((short) 5);
        for (int v : new int[] {8, 4, 12, 4, 1, 8, 234, 4, 235, 4}) {
            m.putShort((short) v);
        }
        m.putShort((short) 3).putShort((short) 18).putShort((short) 310).putShort((short) 2);
        m.putShort((short) 1).putShort((short) 234).putShort((short) 4);
        m.putShort((short) 236).putShort((short) 0xffff);
        byte[] blue = "cust-a:blue".getBytes(StandardCharsets.UTF_8);
        byte[] dflt = "default".getBytes(StandardCharsets.UTF_8);
        m.putShort((short) 310).putShort((short) (4 + 5 + blue.length + 5 + dflt.length));
        m.putInt(10).put((byte) blue.length).put(blue).putInt(1).put((byte) dflt.length).put(dflt);
        m.putShort((short) 256).putShort((short) 28);
        m.putInt(0x0a000001).putInt(0x0a000002).putLong(1500).putInt(10).putInt(1);
        m.putShort(2, (short) m.position());
        m.flip();
        Path pcap = dir.resolve("vrf.pcap");
        try (PcapWriter w = PcapWriter.create(pcap, false)) {
            IpAddress a = IpAddress.parse("192.0.2.9");
            w.writeUdp(1_705_320_000_000_000_000L, a, 50000, a, 4739, m);
        }
        Run r = run(pcap.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out().lines())
                .singleElement()
                .asString()
                .contains(
                        "\"ingressVRFID\":10,\"egressVRFID\":1",
                        "\"ingressVRFname\":\"cust-a:blue\",\"egressVRFname\":\"default\"}");
    }

    @Test
    void tableFormatHasHeaderAndOneLinePerFlow() {
        Run r = run(TestDataDir.file("netflow-v5-nfreplay.pcap").toString(), "--format", "table");
        assertThat(r.code()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines).hasSize(2279 + 1);
        assertThat(lines.get(0)).startsWith("Date first seen");
        assertThat(lines.get(1)).startsWith("2024-01-15 12:");
    }

    @Test
    void countMismatchOfSoftflowdIsReportedNotFatal() {
        Run r = run(TestDataDir.file("netflow-v9-softflowd.pcap").toString(), "--limit", "10");
        assertThat(r.out().lines()).hasSize(10);
        assertThat(r.err()).contains("stopped at --limit");
    }

    @Test
    void helpAndBadUsage() {
        Run help = run("--help");
        assertThat(help.code()).isZero();
        assertThat(help.out()).contains("usage: flowhouse decode");
        assertThat(run().code()).isEqualTo(2);
        assertThat(run("x.pcap", "--format", "xml").code()).isEqualTo(2);
        assertThat(run("/nonexistent/file.pcap").code()).isEqualTo(1);
    }

    @Test
    void packetTraceHasNoNetflow() {
        Run r = run(TestDataDir.file("packets-synthetic.pcap").toString());
        assertThat(r.code()).isZero();
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("42173 packets", "not NetFlow/IPFIX");
    }
}
