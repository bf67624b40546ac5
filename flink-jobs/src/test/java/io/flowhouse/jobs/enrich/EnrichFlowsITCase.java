// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.geo.AsnOrder;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.jobs.FlowPipelineJob;
import io.flowhouse.jobs.config.PipelineSettings;
import io.flowhouse.jobs.tables.AsNamesTable;
import io.flowhouse.jobs.tables.ClickHouseTestSupport;
import io.flowhouse.jobs.tables.JobTables;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The enrich stage on a MiniCluster, with the job's type rules (no generic types: the context is a
 * POJO), the real open geo databases and a rules file: every flow comes out with its context, and
 * the countries and AS numbers equal what libmaxminddb's {@code mmdblookup} reads from the files.
 */
class EnrichFlowsITCase {

    @RegisterExtension
    @Order(1)
    static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final String[] SRC = {"8.8.8.8", "1.1.1.1", "2a00:1450:4001:800::200e"};
    private static final String[] DST = {"203.0.113.7", "2001:db8:1::1", "185.199.108.153"};

    @TempDir Path tmp;

    @Test
    void contextLandsInClickHouseAndFlowsReadableShowsNames() throws Exception {
        Path geo = geoData();
        ServiceRequirement.requireExecutable("mmdblookup", "apt-get install mmdb-bin");
        String db = ClickHouseTestSupport.freshDatabase("enrich");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlowPipelineJob.configure(env, jobSettings());
        env.setParallelism(2);
        env.enableCheckpointing(200);
        EnrichFlows.attach(env.fromData(flows(60)), settings(geo))
                .sinkTo(
                        JobTables.of(
                                        ClickHouseTestSupport.options(CLICKHOUSE.service(), db)
                                                .build())
                                .enrichedFlows())
                .name("clickhouse-flows");
        env.execute("enrich to clickhouse");
        // AS names once per AS, loaded from the database as ./flowhouse up and demo load them.
        AsNamesTable.load(
                ClickHouseTestSupport.options(CLICKHOUSE.service(), db).build(),
                geo.resolve("asn.mmdb"),
                Duration.ZERO);
        assertThat(
                        CLICKHOUSE
                                .service()
                                .query(
                                        "SELECT count(), uniqExact(src_country) FROM "
                                                + db
                                                + ".flows WHERE src_country != ''"))
                .containsExactly("60\t3");
        assertThat(
                        CLICKHOUSE
                                .service()
                                .query(
                                        "SELECT exporter_name, in_if_name, in_if_boundary,"
                                                + " in_if_provider, count() FROM "
                                                + db
                                                + ".flows WHERE exporter_name != ''"
                                                + " GROUP BY exporter_name, in_if_name,"
                                                + " in_if_boundary, in_if_provider"
                                                + " ORDER BY in_if_name"))
                .containsExactly("edge1\t\t\t\t15", "edge1\txe-0/0/1\texternal\tCogent\t5");
        String google = mmdb(geo.resolve("asn.mmdb"), "8.8.8.8", "autonomous_system_organization");
        assertThat(
                        CLICKHOUSE
                                .service()
                                .query(
                                        "SELECT DISTINCT src_as, src_as_name, src_country, dst_net_name FROM "
                                                + db
                                                + ".flows_readable WHERE src_ip LIKE '%8.8.8.8'"
                                                + " AND src_as = 15169"))
                .containsExactly("15169\t" + google + "\tUS\tcustomers");
    }

    @Test
    void everyFlowCarriesItsContext() throws Exception {
        Path geo = geoData();
        ServiceRequirement.requireExecutable("mmdblookup", "apt-get install mmdb-bin");
        EnrichSettings settings = settings(geo);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        FlowPipelineJob.configure(env, jobSettings());
        env.setParallelism(2);
        int n = 60;
        List<FlowRecord> flows = flows(n);
        List<EnrichedFlow> out = new ArrayList<>();
        CloseableIterator<EnrichedFlow> it =
                EnrichFlows.attach(env.fromData(flows), settings).executeAndCollect("enrich");
        it.forEachRemaining(out::add);
        it.close();
        check(geo, out, n);
    }

    private EnrichSettings settings(Path geo) throws Exception {
        Path rules =
                Files.writeString(
                        tmp.resolve("rules.yaml"),
                        """
                        exporters:
                          - prefix: 192.0.2.1/32
                            name: edge1
                            site: par1
                            interfaces:
                              - if-index: 1
                                name: xe-0/0/1
                                description: 'transit: Cogent'
                              - description-match: '^transit: (\\S+)'
                                boundary: external
                                provider: $1
                        networks:
                          - prefix: 203.0.113.0/24
                            name: customers
                            tenant: acme
                        """);
        return new EnrichSettings(
                geo.resolve("country.mmdb").toString(),
                geo.resolve("asn.mmdb").toString(),
                1024,
                AsnOrder.EXPORTER_FIRST,
                rules.toString(),
                16,
                16,
                16,
                Duration.ofSeconds(30),
                null);
    }

    private static List<FlowRecord> flows(int n) {
        List<FlowRecord> flows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            flows.add(
                    ClickHouseTestSupport.flow(i).toBuilder()
                            .srcAddr(IpAddress.parse(SRC[i % 3]))
                            .dstAddr(IpAddress.parse(DST[i % 3]))
                            .srcAs(i % 2 == 0 ? 0 : 64512)
                            .dstAs(0)
                            .build());
        }
        return flows;
    }

    private static void check(Path geo, List<EnrichedFlow> out, int n) throws Exception {
        assertThat(out).hasSize(n);
        for (EnrichedFlow e : out) {
            FlowRecord f = e.flow();
            FlowContext c = e.context();
            String src = f.srcAddr().toString();
            String dst = f.dstAddr().toString();
            assertThat(c.srcCountry())
                    .as(src)
                    .isEqualTo(mmdb(geo.resolve("country.mmdb"), src, "country_code"));
            assertThat(c.dstCountry())
                    .as(dst)
                    .isEqualTo(mmdb(geo.resolve("country.mmdb"), dst, "country_code"));
            String dbSrcAs = mmdb(geo.resolve("asn.mmdb"), src, "autonomous_system_number");
            assertThat(c.srcAs())
                    .as(src)
                    .isEqualTo(f.srcAs() != 0 ? f.srcAs() : Long.parseLong(dbSrcAs));
            String dbDstAs = mmdb(geo.resolve("asn.mmdb"), dst, "autonomous_system_number");
            assertThat(c.dstAs())
                    .as(dst)
                    .isEqualTo(dbDstAs.isEmpty() ? 0 : Long.parseLong(dbDstAs));
            boolean edge1 = f.exporterAddress().equals(IpAddress.parse("192.0.2.1"));
            assertThat(c.exporter().name()).isEqualTo(edge1 ? "edge1" : "");
            if (edge1 && f.inputInterface() == 1) {
                assertThat(c.in().name()).isEqualTo("xe-0/0/1");
                assertThat(c.in().boundary()).isEqualTo(Boundary.EXTERNAL);
                assertThat(c.in().provider()).isEqualTo("Cogent");
            } else {
                assertThat(c.in().boundary()).isEqualTo(Boundary.UNDEFINED);
            }
            assertThat(c.dstNetwork().name())
                    .isEqualTo(dst.startsWith("203.0.113.") ? "customers" : "");
        }
        assertThat(out.stream().filter(e -> e.context().srcCountry().equals("US")).count())
                .isPositive();
    }

    private static PipelineSettings jobSettings() {
        return PipelineSettings.from(
                io.flowhouse.config.ConfigResolver.of(io.flowhouse.jobs.config.JobKeys.SCHEMA)
                        .resolve(),
                Map.of());
    }

    private static Path geoData() throws Exception {
        return GeoTestData.dir();
    }

    private static String mmdb(Path file, String ip, String key) throws Exception {
        return GeoTestData.mmdblookup(file, ip, key);
    }
}
