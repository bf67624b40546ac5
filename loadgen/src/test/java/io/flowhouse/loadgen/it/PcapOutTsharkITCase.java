// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.testkit.ServiceRequirement;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --pcap-out} writes what loadgen would send; Wireshark's decoder (tshark) finds the same
 * number of flow records and the same packet and byte sums as the summary.
 */
class PcapOutTsharkITCase {

    @TempDir Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"v5", "v9", "ipfix", "mix"})
    void tsharkCountsWhatTheSummarySays(String protocol) throws Exception {
        Path tshark = ServiceRequirement.requireExecutable("tshark", "apt-get install tshark");
        Path pcap = dir.resolve(protocol + ".pcap");
        Path json = dir.resolve(protocol + ".json");
        int exit =
                LoadgenUdpITCase.run(
                        "--pcap-out",
                        pcap.toString(),
                        "--protocol",
                        protocol,
                        "--exporters",
                        "4",
                        "--count",
                        "12000",
                        "--rate",
                        "50000",
                        "--sampling",
                        "4",
                        "--ipv6-share",
                        "0.4",
                        "--start-time",
                        "1700000000000",
                        "--summary-json",
                        json.toString(),
                        "--quiet");
        assertThat(exit).isZero();
        SummaryJson s = SummaryJson.read(json);
        assertThat(s.number("flows")).isEqualTo(12_000);

        List<String> base =
                List.of(
                        tshark.toString(),
                        "-r",
                        pcap.toString(),
                        "-d",
                        "udp.port==2055,cflow",
                        "-d",
                        "udp.port==4739,cflow",
                        "-T",
                        "fields");
        String frames = tool(base, "frame.number");
        assertThat(ToolOutput.count(frames))
                .isEqualTo(s.number("datagrams") + s.number("malformed_datagrams"));
        // One protocol field per data record (options records have none).
        assertThat(ToolOutput.count(tool(base, "cflow.protocol"))).isEqualTo(12_000);
        // IPFIX's reverse counters (zero here) are also named cflow.octets/packets; sums hold.
        assertThat(ToolOutput.sum(tool(base, "cflow.packets"))).isEqualTo(s.number("packets"));
        assertThat(ToolOutput.sum(tool(base, "cflow.octets"))).isEqualTo(s.number("bytes"));
    }

    private String tool(List<String> base, String field) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(base);
        cmd.add("-e");
        cmd.add(field);
        return ToolOutput.run(dir, 120, cmd);
    }
}
