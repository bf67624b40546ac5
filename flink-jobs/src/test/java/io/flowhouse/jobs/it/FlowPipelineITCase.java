// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every shared capture, produced to {@code flows.raw} as the agent would (one exporter per
 * capture), goes through the production topology on a MiniCluster (2 TaskManagers x 2 slots) into a
 * real ClickHouse, and the per-exporter totals there equal the README's ground truth.
 */
class FlowPipelineITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(2)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyCaptureLandsInClickHouseWithTheGroundTruthTotals() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(), ch, "gt", "--kafka.stop", "latest");
        List<RawDatagram> all = new ArrayList<>();
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            all.addAll(
                    CaptureProducer.datagrams(
                            CaptureProducer.CAPTURES.get(i).file(),
                            IpAddress.parse("192.0.2." + (10 + i)),
                            40_000 + i));
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), all);

        PipelineHarness.environment(s, ch).execute("ground truth");

        List<List<String>> rows =
                ch.queryRows(
                        "SELECT exporter_port, count(), sum(packets + reverse_packets),"
                                + " sum(bytes + reverse_bytes), uniqExact(row_id)"
                                + " FROM flowhouse_gt.flows FINAL"
                                + " GROUP BY exporter_port ORDER BY exporter_port");
        assertThat(rows).hasSize(CaptureProducer.CAPTURES.size());
        for (int i = 0; i < rows.size(); i++) {
            CaptureProducer.Capture c = CaptureProducer.CAPTURES.get(i);
            List<String> r = rows.get(i);
            assertThat(r.get(0)).isEqualTo(Integer.toString(40_000 + i));
            assertThat(Long.parseLong(r.get(2))).as(c.file() + " packets").isEqualTo(c.packets());
            assertThat(Long.parseLong(r.get(3))).as(c.file() + " bytes").isEqualTo(c.bytes());
            assertThat(Long.parseLong(r.get(1))).as(c.file() + " records").isEqualTo(c.records());
            assertThat(r.get(4)).as(c.file() + " distinct row ids").isEqualTo(r.get(1));
        }
    }
}
