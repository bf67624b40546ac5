// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.testdata.CaptureFlows;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link IpfixExporterSink} in a Flink MiniCluster job with two targets at once: nfcapd over UDP
 * counts the ground truth, and a TCP collector decodes every flow.
 */
class IpfixExporterSinkITCase {

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path dir;

    @Test
    void flinkJobReexportsToUdpAndTcpCollectors() throws Exception {
        CaptureFlows.Capture capture = CaptureFlows.ALL.get(3);
        List<FlowRecord> flows = CaptureFlows.decode(capture);
        int port = PeerCollectors.freeUdpPort();
        Process nfcapd = PeerCollectors.startNfcapd(dir, port);
        try (TcpTap tcp = new TcpTap()) {
            IpfixExporterOptions options =
                    IpfixExporterOptions.builder()
                            .target("127.0.0.1:" + port)
                            .target("127.0.0.1:" + tcp.port() + "/tcp")
                            .build();
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(1);
            env.fromData(flows).sinkTo(IpfixExporterSink.of(options)).name("ipfix");
            env.execute("ipfix sink test");
            List<List<UdpTap.Datagram>> conns =
                    tcp.awaitUntil(
                            c -> !c.isEmpty() && dataRecords(c.get(0)) >= flows.size(),
                            Duration.ofSeconds(30));
            assertThat(IpfixMessages.decode(conns.get(0))).hasSize(flows.size());
            Thread.sleep(500); // let nfcapd drain its socket before it is told to stop
        } finally {
            PeerCollectors.stop(nfcapd);
        }
        PeerCollectors.Totals t = PeerCollectors.nfdumpTotals(dir);
        assertThat(t.flows()).isEqualTo(flows.size());
        assertThat(t.packets()).isEqualTo(capture.packets());
        assertThat(t.bytes()).isEqualTo(capture.bytes());
    }

    private static int dataRecords(List<UdpTap.Datagram> messages) {
        int n = 0;
        for (UdpTap.Datagram d : messages) {
            n +=
                    IpfixMessages.summarize(
                                    d.payload(),
                                    IpfixExporterITCase.V4_LEN,
                                    IpfixExporterITCase.V6_LEN,
                                    IpfixExporterITCase.OPT_LEN)
                            .dataRecords();
        }
        return n;
    }
}
