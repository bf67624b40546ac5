// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.enrich.GeoTestData;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import io.flowhouse.testkit.clickhouse.LocalClickHouse;
import io.flowhouse.testkit.kafka.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The production topology with enrichment configured (rules file and the open geo databases): every
 * capture's flows land in ClickHouse with their context, and the countries and AS numbers stored
 * equal what {@code mmdblookup} reads from the same files.
 */
class EnrichedPipelineITCase {

    @RegisterExtension
    static final EmbeddedKafka KAFKA = EmbeddedKafka.builder().partitions(2).build();

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    @TempDir Path tmp;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void flowsLandWithTheirContext() throws Exception {
        Path geo = GeoTestData.dir();
        ServiceRequirement.requireExecutable("mmdblookup", "apt-get install mmdb-bin");
        Path rules =
                Files.writeString(
                        tmp.resolve("rules.yaml"),
                        """
                        exporters:
                          - prefix: 192.0.2.0/24
                            name: edge-a
                            site: lab
                            interfaces:
                              - boundary: external
                        networks:
                          - prefix: 0.0.0.0/0
                            name: v4-anywhere
                        """);
        LocalClickHouse ch = CLICKHOUSE.local();
        PipelineSettings s =
                PipelineHarness.settings(
                        KAFKA.bootstrapServers(),
                        ch,
                        "enr",
                        "--kafka.stop",
                        "latest",
                        "--enrich.rules-file",
                        rules.toString(),
                        "--enrich.geoip.country-database",
                        geo.resolve("country.mmdb").toString(),
                        "--enrich.geoip.asn-database",
                        geo.resolve("asn.mmdb").toString(),
                        "--enrich.asn-order",
                        "database");
        assertThat(s.enrich().enabled()).isTrue();
        List<RawDatagram> all = new ArrayList<>();
        for (int i = 0; i < CaptureProducer.CAPTURES.size(); i++) {
            all.addAll(
                    CaptureProducer.datagrams(
                            CaptureProducer.CAPTURES.get(i).file(),
                            IpAddress.parse("192.0.2." + (10 + i)),
                            40_000 + i));
        }
        KAFKA.createTopic(s.rawTopic(), 2);
        CaptureProducer.produce(KAFKA.bootstrapServers(), s.rawTopic(), all);

        PipelineHarness.environment(s, ch).execute("enriched");

        List<String> totals =
                ch.query(
                        "SELECT count(), countIf(exporter_name = 'edge-a' AND exporter_site = 'lab'),"
                                + " countIf(src_net_name = 'v4-anywhere') = countIf(ip_version = 4)"
                                + " FROM flowhouse_enr.flows");
        String[] t = totals.get(0).split("\t");
        assertThat(Long.parseLong(t[0])).isPositive();
        assertThat(t[1]).isEqualTo(t[0]);
        assertThat(t[2]).isEqualTo("1");
        // Per distinct source address (up to 200), the stored country and AS equal mmdblookup's.
        List<List<String>> rows =
                ch.queryRows(
                        "SELECT DISTINCT src_ip, src_country, src_as FROM flowhouse_enr.flows_readable"
                                + " ORDER BY 1 LIMIT 200");
        assertThat(rows).isNotEmpty();
        int withCountry = 0;
        for (List<String> r : rows) {
            String ip = r.get(0).startsWith("::ffff:") ? r.get(0).substring(7) : r.get(0);
            String country =
                    GeoTestData.mmdblookup(geo.resolve("country.mmdb"), ip, "country_code");
            String as =
                    GeoTestData.mmdblookup(geo.resolve("asn.mmdb"), ip, "autonomous_system_number");
            assertThat(r.get(1)).as(ip).isEqualTo(country);
            assertThat(r.get(2)).as(ip).isEqualTo(as.isEmpty() ? "0" : as);
            withCountry += country.isEmpty() ? 0 : 1;
        }
        assertThat(withCountry).as("sources with a country").isPositive();
        // The README's queries, without their time filter (the captures are old).
        assertThat(
                        ch.query(
                                "SELECT exporter_name, in_if_name, src_as, any(src_as_name) AS"
                                        + " as_name,\n"
                                        + "       sum(bytes_scaled) AS bytes\n"
                                        + "FROM flowhouse_enr.flows_readable\n"
                                        + "WHERE 1 AND in_if_boundary = 'external'\n"
                                        + "GROUP BY exporter_name, in_if_name, src_as\n"
                                        + "ORDER BY exporter_name, in_if_name, bytes DESC\n"
                                        + "LIMIT 5 BY exporter_name, in_if_name"))
                .isNotEmpty()
                .allMatch(row -> row.startsWith("edge-a\t"));
        List<String> byCountry =
                ch.query(
                        "SELECT src_country, dst_country, sum(bytes * sampling_rate) AS bytes\n"
                                + "FROM flowhouse_enr.flows FINAL WHERE 1\n"
                                + "GROUP BY src_country, dst_country ORDER BY bytes DESC LIMIT 20");
        assertThat(byCountry).isNotEmpty();
        // exporter_stats names each exporter as the rules file does (V010).
        List<String> stats =
                ch.query(
                        "SELECT count() > 0, countIf(exporter_name = 'edge-a') = count()"
                                + " FROM flowhouse_enr.exporter_stats");
        assertThat(stats).containsExactly("1\t1");
        // AS names are not stored per row: the view joins them from as_names.
        assertThat(ch.query("SELECT count() FROM flowhouse_enr.flows_readable"))
                .containsExactly(t[0]);
    }
}
