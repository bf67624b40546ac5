// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.SflowAgentKey;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The two real sFlow v5 captures, produced to {@code flows.raw} as the agent does (keyed by sFlow
 * agent and sub-agent), go through the production topology on a MiniCluster into a real ClickHouse:
 * {@code flows} and the rollups hold exactly testdata/README's goldens (one row per flow sample,
 * bytes the sampled frame length, the sample's rate beside them), and {@code exporter_stats} counts
 * every datagram with no sequence gap.
 */
class SflowPipelineITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(4).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    /**
     * 192.0.2.1 port 41000: pmacct sfprobe at 1:1; 192.0.2.2 port 41001: Open vSwitch at 1:10
     * (testdata/README; the rollups know the exporter by address only).
     */
    private static final String[] FILES = {"sflow-pmacct-rate1.pcap.gz", "sflow-ovs-rate10.pcap"};

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void bothCapturesLandWithTheGoldensTotals() throws Exception {
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(), ch, "sflow", "--kafka.stop", "latest");
        List<RawDatagram> all = new ArrayList<>();
        for (int i = 0; i < FILES.length; i++) {
            all.addAll(
                    CaptureProducer.datagrams(
                            FILES[i], IpAddress.parse("192.0.2." + (1 + i)), 41_000 + i));
        }
        KAFKA.createTopic(s.rawTopic(), 4);
        CaptureProducer.produce(
                KAFKA.bootstrapServers(),
                s.rawTopic(),
                all,
                d -> SflowAgentKey.encodeFromHeader(ByteBuffer.wrap(d.payload())));

        PipelineHarness.environment(s, ch).execute("sflow ground truth");

        String db = "flowhouse_sflow";
        // Samples, unscaled packets and bytes (sampled frame lengths), scaled packets and bytes.
        assertThat(
                        ch.queryRows(
                                "SELECT exporter_port, count(), sum(packets), sum(bytes),"
                                        + " sum(packets * sampling_rate),"
                                        + " sum(bytes * sampling_rate), min(sampling_rate),"
                                        + " max(sampling_rate), uniqExact(row_id, row_id_hi),"
                                        + " min(version) FROM "
                                        + db
                                        + ".flows FINAL GROUP BY exporter_port"
                                        + " ORDER BY exporter_port"))
                .containsExactly(
                        List.of(
                                "41000",
                                "42173",
                                "42173",
                                "31803431",
                                "42173",
                                "31803431",
                                "1",
                                "1",
                                "42173",
                                "105"),
                        List.of(
                                "41001",
                                "4215",
                                "4215",
                                "3231726",
                                "42150",
                                "32317260",
                                "10",
                                "10",
                                "4215",
                                "105"));
        // The rollups scale by the sampling rate: one direction of the interface buckets.
        for (String table : List.of("flows_1m", "flows_1h")) {
            assertThat(
                            ch.queryRows(
                                    "SELECT sum(flows), sum(packets), sum(bytes)"
                                            + " FROM "
                                            + db
                                            + "."
                                            + table
                                            + " FINAL WHERE kind = 'interface' AND direction = 0"
                                            + " GROUP BY exporter ORDER BY exporter"))
                    .as(table)
                    .containsExactly(
                            List.of("42173", "42173", "31803431"),
                            List.of("4215", "42150", "32317260"));
        }
        // Every datagram counted once, under sFlow's version (105) and sub-agent id.
        assertThat(
                        ch.queryRows(
                                "SELECT exporter_port, observation_domain, version,"
                                        + " sum(datagrams), sum(records), sum(sequence_gaps),"
                                        + " sum(lost_datagrams), sum(sequence_resets) FROM "
                                        + db
                                        + ".exporter_stats FINAL GROUP BY exporter_port,"
                                        + " observation_domain, version ORDER BY exporter_port"))
                .containsExactly(
                        List.of("41000", "1", "105", "5770", "42173", "0", "0", "0"),
                        List.of("41001", "0", "105", "588", "4215", "0", "0", "0"));
    }
}
