// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.enrich.geo.AsnDatabase;
import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.testkit.ServiceRequirement;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./flowhouse up} with the job's ASN database set fills {@code as_names}, as a user runs it
 * (services, agent, job and console on free ports): one row per AS of the open ASN database, and
 * the names of a sample of its networks equal what libmaxminddb's {@code mmdblookup} reads.
 */
class UpAsNamesITCase {

    private static final int SAMPLE = 40;

    @TempDir static Path stateDir;

    private static Path root;
    private static Map<String, String> env;
    private static int[] udp;

    @BeforeAll
    static void locate() {
        root = Path.of(System.getProperty("flowhouse.root.dir", "..")).toAbsolutePath().normalize();
        List<String> missing = PipelineParts.missingForUp(root);
        ServiceRequirement.require(missing.isEmpty(), "the built pipeline: " + missing);
        ServiceRequirement.require(
                Files.isExecutable(ServicesConfig.defaults(root).clickhouseBinary()),
                "clickhouse-server (apt-get install -y clickhouse-server)");
        ServiceRequirement.requireExecutable("mmdblookup", "apt-get install mmdb-bin");
        int[] tcp = LocalPorts.free(12);
        env = new HashMap<>();
        env.put("FLOWHOUSE_KAFKA_PORT", Integer.toString(tcp[0]));
        env.put("FLOWHOUSE_KAFKA_CONTROLLER_PORT", Integer.toString(tcp[1]));
        env.put("FLOWHOUSE_CLICKHOUSE_HTTP_PORT", Integer.toString(tcp[2]));
        env.put("FLOWHOUSE_CLICKHOUSE_NATIVE_PORT", Integer.toString(tcp[3]));
        env.put("FLOWHOUSE_FLINK_REST_PORT", Integer.toString(tcp[4]));
        env.put("FLOWHOUSE_FLINK_RPC_PORT", Integer.toString(tcp[5]));
        env.put("FLOWHOUSE_FLINK_PROMETHEUS_PORTS", "none");
        env.put("FLOWHOUSE_CONSOLE_LISTEN_PORT", Integer.toString(tcp[6]));
        // UDP ports and the agent's metrics: free TCP numbers, almost always free for UDP too.
        udp = new int[] {tcp[7], tcp[8], tcp[9], tcp[10]};
    }

    @AfterAll
    static void down() {
        if (root != null) {
            flowhouse("down");
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void upLoadsEveryAsNameOfTheAsnDatabase() throws Exception {
        flowhouse("down");
        Path asn = geoDir().resolve("asn.mmdb");
        Result up =
                flowhouse(
                        "up",
                        "--netflow-port",
                        Integer.toString(udp[0]),
                        "--ipfix-port",
                        Integer.toString(udp[1]),
                        "--sflow-port",
                        Integer.toString(udp[2]),
                        "--agent-arg",
                        "--metrics-port " + udp[3],
                        "--",
                        "--enrich.geoip.asn-database",
                        asn.toString());
        assertThat(up.code()).as(up.toString()).isZero();

        Map<Long, String> names = AsnDatabase.names(asn);
        assertThat(names.size()).isGreaterThan(50_000);
        assertThat(up.out())
                .contains(String.format(Locale.ROOT, "as_names: %,d AS names in", names.size()));
        assertThat(query("SELECT count(), uniqExact(asn) FROM as_names FINAL"))
                .isEqualTo(names.size() + "\t" + names.size());

        int v6 = 0;
        for (AsnDatabase.AsnNetwork n : AsnDatabase.sampleNetworks(asn, SAMPLE, 11)) {
            String ip = n.cidr().substring(0, n.cidr().indexOf('/'));
            String number = mmdblookup(asn, ip, "autonomous_system_number");
            String name = mmdblookup(asn, ip, "autonomous_system_organization");
            assertThat(number).as(n.cidr()).isEqualTo(Long.toString(n.asn()));
            assertThat(raw("SELECT name FROM as_names FINAL WHERE asn = " + number))
                    .as("AS" + number + " (" + n.cidr() + ")")
                    .isEqualTo(name);
            v6 += n.ipv4() ? 0 : 1;
        }
        assertThat(v6).as("IPv6 networks in the sample").isPositive();
    }

    /** The fetched open data (enrichment/scripts/fetch-geo-data.sh; run here when missing). */
    private static Path geoDir() throws Exception {
        Process p =
                new ProcessBuilder(
                                "bash",
                                root.resolve("enrichment/scripts/fetch-geo-data.sh").toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        String dir = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        boolean ok = p.waitFor(20, TimeUnit.MINUTES) && p.exitValue() == 0;
        ServiceRequirement.require(
                ok, "geo data from enrichment/scripts/fetch-geo-data.sh (npm, python3-venv)");
        return Path.of(dir);
    }

    private static String mmdblookup(Path file, String ip, String key) throws Exception {
        Process p =
                new ProcessBuilder("mmdblookup", "--file", file.toString(), "--ip", ip, key)
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        for (String line : out.split("\n")) {
            String t = line.trim();
            int type = t.lastIndexOf(" <");
            if (type > 0) {
                String v = t.substring(0, type);
                return v.startsWith("\"") ? v.substring(1, v.length() - 1) : v;
            }
        }
        return "";
    }

    private static String query(String sql) {
        return query(sql, "TSV");
    }

    /** One value as stored, without TSV's escapes. */
    private static String raw(String sql) {
        return query(sql, "TSVRaw");
    }

    private static String query(String sql, String format) {
        Result r = flowhouse("query", "--format", format, sql);
        assertThat(r.code()).as(sql + " (" + r + ")").isZero();
        return r.out().trim();
    }

    private record Result(int code, String out, String err) {}

    private static Result flowhouse(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        FlowhouseMain main =
                new FlowhouseMain(
                        new FlowhouseHome(root, stateDir),
                        env,
                        new ByteArrayInputStream(new byte[0]));
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = main.run(List.of(args), o, e);
        }
        return new Result(
                code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
