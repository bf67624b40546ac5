// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.enrich.geo.AsnDatabase;
import io.flowhouse.jobs.enrich.GeoTestData;
import io.flowhouse.sinks.clickhouse.ClickHouseConnection;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkException;
import io.flowhouse.sinks.clickhouse.ClickHouseSinkOptions;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.clickhouse.ClickHouseExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code as_names} filled from the real open ASN database: every AS of the file once, a second load
 * writes nothing, and for hundreds of AS numbers drawn from the file the stored name equals what
 * libmaxminddb's {@code mmdblookup} reads for the AS's networks; {@code flows_readable} joins them.
 */
class AsNamesTableITCase {

    @RegisterExtension static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();

    private static final int SAMPLE = 400;

    @Test
    void loadsEveryAsOnceAndTheNamesEqualMmdblookup() throws Exception {
        ServiceRequirement.requireExecutable("mmdblookup", "apt-get install mmdb-bin");
        Path asn = GeoTestData.dir().resolve("asn.mmdb");
        String db = ClickHouseTestSupport.freshDatabase("asnames");
        ClickHouseSinkOptions options =
                ClickHouseTestSupport.options(CLICKHOUSE.service(), db).build();
        try (ClickHouseConnection c = new ClickHouseConnection(options)) {
            ClickHouseTestSupport.SCHEMA.migrator(c, db).migrate();
        }

        AsNamesTable.Result first = AsNamesTable.load(options, asn, Duration.ZERO);
        assertThat(first.inFile()).isGreaterThan(50_000);
        assertThat(first.written()).isEqualTo(first.inFile());
        assertThat(query("SELECT count(), uniqExact(asn) FROM " + db + ".as_names"))
                .containsExactly(first.inFile() + "\t" + first.inFile());

        AsNamesTable.Result again = AsNamesTable.load(options, asn, Duration.ZERO);
        assertThat(again).isEqualTo(new AsNamesTable.Result(first.inFile(), 0, first.inFile()));
        assertThat(query("SELECT count() FROM " + db + ".as_names"))
                .containsExactly(Integer.toString(first.inFile()));

        Map<String, String> stored = new HashMap<>();
        for (String line : query("SELECT asn, name FROM " + db + ".as_names FINAL")) {
            int tab = line.indexOf('\t');
            stored.put(line.substring(0, tab), AsNamesTable.unescape(line.substring(tab + 1)));
        }
        List<AsnDatabase.AsnNetwork> networks = AsnDatabase.sampleNetworks(asn, SAMPLE, 7);
        int v6 = 0;
        for (AsnDatabase.AsnNetwork n : networks) {
            String ip = n.cidr().substring(0, n.cidr().indexOf('/'));
            String number = GeoTestData.mmdblookup(asn, ip, "autonomous_system_number");
            String name = GeoTestData.mmdblookup(asn, ip, "autonomous_system_organization");
            assertThat(number).as(n.cidr()).isEqualTo(Long.toString(n.asn()));
            assertThat(stored.get(number))
                    .as("AS" + number + " (" + n.cidr() + ")")
                    .isEqualTo(name);
            v6 += n.ipv4() ? 0 : 1;
        }
        assertThat(v6).as("IPv6 networks in the sample").isGreaterThan(SAMPLE / 20);

        // The view shows the names.
        query(
                "INSERT INTO "
                        + db
                        + ".flows (time_received, src_as, dst_as) VALUES (now(), 15169, 13335)");
        assertThat(query("SELECT src_as_name, dst_as_name FROM " + db + ".flows_readable"))
                .containsExactly(stored.get("15169") + "\t" + stored.get("13335"));
    }

    @Test
    void aMissingTableIsAClearError() throws Exception {
        String db = ClickHouseTestSupport.freshDatabase("asnames_none");
        query("CREATE DATABASE " + db);
        ClickHouseSinkOptions options =
                ClickHouseTestSupport.options(CLICKHOUSE.service(), db).build();
        try (ClickHouseConnection c = new ClickHouseConnection(options)) {
            assertThatThrownBy(
                            () ->
                                    AsNamesTable.load(
                                            c,
                                            db,
                                            new java.util.TreeMap<>(Map.of(15169L, "GOOGLE")),
                                            Duration.ofMillis(600)))
                    .isInstanceOf(ClickHouseSinkException.class)
                    .hasMessageContaining(db + ".as_names")
                    .hasMessageContaining("creates it");
        }
    }

    private static List<String> query(String sql) throws Exception {
        return CLICKHOUSE.service().query(sql);
    }
}
