// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.flowhouse.enrich.geo.AsnDatabase;
import io.flowhouse.jobs.enrich.GeoTestData;
import io.flowhouse.loadgen.LoadgenMain;
import io.flowhouse.testkit.ServiceRequirement;
import io.flowhouse.testkit.TestDataDir;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./flowhouse decode --enrich CONFIG}: a capture of flows between real networks (loadgen
 * with prefixes drawn from the open ASN database, written as a pcap) decoded with the job's
 * enrichment keys; every flow's countries, AS numbers and AS names equal what libmaxminddb's {@code
 * mmdblookup} reads from the same files. And a rules file names a real capture's exporter and
 * interfaces.
 */
class DecodeEnrichITCase {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void countriesAndAsEqualMmdblookup() throws Exception {
        ServiceRequirement.requireExecutable("mmdblookup", "apt-get install mmdb-bin");
        Path geo = geoData();
        Path prefixes = dir.resolve("prefixes.txt");
        List<String> lines = new ArrayList<>();
        for (AsnDatabase.AsnNetwork n :
                AsnDatabase.sampleNetworks(geo.resolve("asn.mmdb"), 120, 3)) {
            lines.add(n.cidr()); // no AS from the exporter: the database's, per the AS order
        }
        Files.write(prefixes, lines);
        Path pcap = dir.resolve("real.pcap");
        int sent =
                LoadgenMain.run(
                        new String[] {
                            "--pcap-out",
                            pcap.toString(),
                            "--prefixes",
                            prefixes.toString(),
                            "--protocol",
                            "ipfix",
                            "--count",
                            "400",
                            "--quiet"
                        },
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                        new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(sent).as(err.toString(StandardCharsets.UTF_8)).isZero();
        Path config = dir.resolve("job.yaml");
        Files.writeString(
                config,
                "enrich.geoip.country-database: "
                        + geo.resolve("country.mmdb")
                        + "\nenrich.geoip.asn-database: "
                        + geo.resolve("asn.mmdb")
                        + "\n");

        assertThat(run("decode", "--enrich", config.toString(), pcap.toString()))
                .as(err.toString(StandardCharsets.UTF_8))
                .isZero();

        Map<String, String[]> cache = new HashMap<>();
        int flows = 0;
        int withCountry = 0;
        int withAs = 0;
        int v6 = 0;
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            JsonNode f = JSON.readTree(line);
            JsonNode c = f.path("context");
            for (String side : List.of("src", "dst")) {
                String ie = side.equals("src") ? "source" : "destination";
                String ip =
                        f.has(ie + "IPv4Address")
                                ? f.path(ie + "IPv4Address").asText()
                                : f.path(ie + "IPv6Address").asText();
                String[] expected = cache.computeIfAbsent(ip, a -> lookup(geo, a));
                assertThat(c.path(side + "_country").asText("")).as(ip).isEqualTo(expected[0]);
                assertThat(c.path(side + "_as").asText()).as(ip).isEqualTo(expected[1]);
                assertThat(c.path(side + "_as_name").asText("")).as(ip).isEqualTo(expected[2]);
                withCountry += expected[0].isEmpty() ? 0 : 1;
                withAs += expected[1].equals("0") ? 0 : 1;
                v6 += ip.contains(":") ? 1 : 0;
            }
            flows++;
        }
        assertThat(flows).isEqualTo(400);
        assertThat(withAs).as("addresses with an AS").isEqualTo(2 * flows);
        assertThat(withCountry).as("addresses with a country").isGreaterThan(flows);
        assertThat(v6).as("IPv6 addresses").isGreaterThan(40);
    }

    @Test
    void theRulesFileNamesExportersAndInterfaces() throws Exception {
        Path config = dir.resolve("rules-only.yaml");
        Path rules = dir.resolve("rules.yaml");
        Files.writeString(
                rules,
                String.join(
                        "\n",
                        "exporters:",
                        "  - prefix: 0.0.0.0/0",
                        "    name: lab-edge",
                        "    site: lab",
                        "    interfaces:",
                        "      - if-index: 0",
                        "        name: lo0",
                        "        boundary: internal",
                        ""));
        Files.writeString(config, "enrich.rules-file: " + rules + "\n");
        Path pcap = TestDataDir.file("ipfix-softflowd.pcap");

        assertThat(run("decode", "--enrich", config.toString(), pcap.toString()))
                .as(err.toString(StandardCharsets.UTF_8))
                .isZero();

        int flows = 0;
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            JsonNode c = JSON.readTree(line).path("context");
            assertThat(c.path("exporter_name").asText()).isEqualTo("lab-edge");
            assertThat(c.path("exporter_site").asText()).isEqualTo("lab");
            // softflowd exports ifIndex 0 on both sides.
            assertThat(c.path("in_if_name").asText()).isEqualTo("lo0");
            assertThat(c.path("out_if_boundary").asText()).isEqualTo("internal");
            assertThat(c.has("src_country")).isFalse();
            flows++;
        }
        assertThat(flows).isEqualTo(2991);
    }

    @Test
    void aConfigWithoutEnrichmentIsAUsageError() throws Exception {
        Path config = dir.resolve("empty.yaml");
        Files.writeString(config, "job.parallelism: 1\n");
        assertThat(
                        run(
                                "decode",
                                "--enrich",
                                config.toString(),
                                TestDataDir.file("ipfix-softflowd.pcap").toString()))
                .isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no enrich.geoip.*");
    }

    private int run(String... args) {
        return InProcessCli.run(dir, List.of(args), out, err);
    }

    private static Path geoData() throws Exception {
        Path root = Path.of(System.getProperty("flowhouse.root.dir", "..")).toAbsolutePath();
        Optional<Path> geo = GeoData.fetch(root, System.getenv(), System.err);
        ServiceRequirement.require(
                geo.isPresent(), "geo data from enrichment/scripts/fetch-geo-data.sh (npm)");
        return geo.get();
    }

    /** Country, AS number ("0" when none) and AS name as mmdblookup reads them. */
    private static String[] lookup(Path geo, String ip) {
        try {
            String asn =
                    GeoTestData.mmdblookup(geo.resolve("asn.mmdb"), ip, "autonomous_system_number");
            return new String[] {
                GeoTestData.mmdblookup(geo.resolve("country.mmdb"), ip, "country_code"),
                asn.isEmpty() ? "0" : asn,
                GeoTestData.mmdblookup(
                        geo.resolve("asn.mmdb"), ip, "autonomous_system_organization")
            };
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
