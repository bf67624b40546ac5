// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.testdata.CaptureFlows;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** IPFIX over TCP: a full capture round trip, then a collector restart and the reconnect. */
class IpfixTcpITCase {

    private static final int V4 = IpfixExporterITCase.V4_LEN;
    private static final int V6 = IpfixExporterITCase.V6_LEN;
    private static final int OPT = IpfixExporterITCase.OPT_LEN;

    @Test
    void captureRoundTripAndReconnectAfterCollectorRestart() throws Exception {
        List<FlowRecord> flows = CaptureFlows.decode(CaptureFlows.ALL.get(6));
        try (TcpTap tap = new TcpTap()) {
            IpfixExporterOptions o =
                    IpfixExporterOptions.builder()
                            .target("127.0.0.1:" + tap.port() + "/tcp")
                            .maxMessageBytes(8192)
                            .reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
                            .build();
            try (IpfixExporter exporter = new IpfixExporter(o.targets().get(0), o)) {
                for (FlowRecord f : flows) {
                    exporter.export(f);
                }
                exporter.flush();
                long sent = exporter.metrics().messagesSent();
                List<UdpTap.Datagram> first =
                        tap.awaitUntil(
                                        c -> !c.isEmpty() && c.get(0).size() >= sent,
                                        Duration.ofSeconds(30))
                                .get(0);
                assertThat(IpfixMessages.decode(first).stream().map(IpfixMessages::carried))
                        .containsExactlyInAnyOrderElementsOf(
                                flows.stream().map(IpfixMessages::carried).toList());
                List<IpfixMessages.Summary> summaries = new ArrayList<>();
                for (UdpTap.Datagram d : first) {
                    assertThat(d.payload().length).isLessThanOrEqualTo(8192);
                    summaries.add(IpfixMessages.summarize(d.payload(), V4, V6, OPT));
                }
                IpfixMessages.assertSequenceContinuity(summaries);
                assertThat(summaries.stream().filter(IpfixMessages.Summary::hasTemplates).count())
                        .as("templates once per TCP connection and domain")
                        .isEqualTo(summaries.stream().map(s -> s.domain()).distinct().count());

                // The collector restarts: the exporter counts what it loses and reconnects.
                tap.dropConnection();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                int i = 0;
                List<List<UdpTap.Datagram>> conns;
                do {
                    exporter.export(flows.get(i++ % flows.size()));
                    exporter.flush();
                    Thread.sleep(5);
                    conns =
                            tap.awaitUntil(
                                    c -> c.size() >= 2 && !c.get(1).isEmpty(),
                                    Duration.ofMillis(1));
                } while ((conns.size() < 2 || conns.get(1).isEmpty())
                        && System.nanoTime() - deadline < 0);
                assertThat(conns).hasSizeGreaterThanOrEqualTo(2);
                IpfixMessages.Summary again =
                        IpfixMessages.summarize(conns.get(1).get(0).payload(), V4, V6, OPT);
                assertThat(again.hasTemplates()).as("templates on the new connection").isTrue();
                assertThat(again.sequence()).as("new transport session").isZero();
                IpfixExporter.Metrics m = exporter.metrics();
                assertThat(m.reconnects()).isGreaterThanOrEqualTo(1);
                assertThat(m.recordsSent() + m.recordsDropped()).isEqualTo(flows.size() + i);
            }
        }
    }
}
