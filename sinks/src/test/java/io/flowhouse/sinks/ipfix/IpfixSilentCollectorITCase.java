// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.ipfix;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.sinks.testdata.CaptureFlows;
import io.flowhouse.testkit.net.SilentTcpCollector;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A TCP collector that accepts and never reads (a real socket with a 4 KiB receive buffer): the
 * caller of {@link QueuedIpfixExporter#offer} never waits, the sender drops the connection after
 * the write timeout and connects again, and every flow is either sent or counted as dropped.
 */
class IpfixSilentCollectorITCase {

    private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(2);

    @Test
    void aCollectorThatStopsReadingCostsCountedDropsNeverAStalledCaller() throws Exception {
        List<FlowRecord> flows = CaptureFlows.decode(CaptureFlows.ALL.get(6));
        try (SilentTcpCollector silent = new SilentTcpCollector(4096)) {
            IpfixExporterOptions o =
                    IpfixExporterOptions.builder()
                            .target("127.0.0.1:" + silent.port() + "/tcp")
                            // One record per flow, so that records and flows compare.
                            .biflowMode(IpfixExporterOptions.BiflowMode.RFC5103)
                            .sendBufferBytes(8192)
                            .writeTimeout(WRITE_TIMEOUT)
                            .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(200))
                            .queueCapacity(2_000)
                            .build();
            QueuedIpfixExporter<FlowRecord> exporter =
                    QueuedIpfixExporter.of(o.targets().get(0), o);
            long offered = 0;
            long slowestOfferNanos = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            // Until the sender has given up on the silent collector twice (two write timeouts).
            while (exporter.metrics().writeTimeouts() < 2 && System.nanoTime() - deadline < 0) {
                for (int i = 0; i < 500; i++) {
                    long t0 = System.nanoTime();
                    exporter.offer(flows.get((int) (offered % flows.size())));
                    slowestOfferNanos = Math.max(slowestOfferNanos, System.nanoTime() - t0);
                    offered++;
                }
                Thread.sleep(2);
            }
            long closeStart = System.nanoTime();
            exporter.close(Duration.ofMillis(500));
            long closeNanos = System.nanoTime() - closeStart;
            IpfixExporter.Metrics m = exporter.metrics();
            QueuedIpfixExporter.QueueMetrics q = exporter.queueMetrics();

            System.out.printf(
                    "silent collector: offered %,d flows; sent %,d records, dropped %,d records +"
                            + " %,d flows at the queue; %d write timeouts, %d connections;"
                            + " slowest offer %.2f ms; close %.0f ms%n",
                    offered,
                    m.recordsSent(),
                    m.recordsDropped(),
                    q.queueDropped(),
                    m.writeTimeouts(),
                    silent.connections(),
                    slowestOfferNanos / 1e6,
                    closeNanos / 1e6);
            assertThat(m.writeTimeouts()).as("connections given up").isGreaterThanOrEqualTo(2);
            assertThat(silent.connections()).as("connected again").isGreaterThanOrEqualTo(2);
            assertThat(m.reconnects()).isGreaterThanOrEqualTo(1);
            assertThat(q.queueDropped()).as("flows dropped at the full queue").isPositive();
            assertThat(m.recordsDropped()).as("records lost with the connections").isPositive();
            // Every flow offered is sent or counted, exactly.
            assertThat(q.offered()).isEqualTo(offered);
            assertThat(m.flowsIn() + q.queueDropped()).isEqualTo(offered);
            assertThat(m.recordsSent() + m.recordsDropped()).isEqualTo(m.flowsIn());
            // A blocked write would have held the caller for the write timeout.
            assertThat(Duration.ofNanos(slowestOfferNanos))
                    .as("slowest offer")
                    .isLessThan(WRITE_TIMEOUT.dividedBy(2));
            assertThat(Duration.ofNanos(closeNanos))
                    .as("close with a message stuck in the socket")
                    .isLessThan(Duration.ofSeconds(6));
        }
    }
}
