// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.testkit.ServiceRequirement;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./flowhouse demo} when the open geo data cannot be fetched: npm's registry is a closed
 * local port and its cache and the geo directory are empty (npm's own environment settings and
 * {@code FLOWHOUSE_GEO_DIR}), so the fetch fails for real. The demo must say why, run without
 * enrichment, write every flow exactly once and exit 0. ClickHouse and the console on free ports.
 */
class DemoGeoFetchFailsITCase {

    @TempDir static Path stateDir;
    @TempDir static Path empty;

    private static Path root;
    private static Map<String, String> env;

    @BeforeAll
    static void locate() throws IOException {
        root = Path.of(System.getProperty("flowhouse.root.dir", "..")).toAbsolutePath().normalize();
        ServiceRequirement.require(
                Files.isExecutable(ServicesConfig.defaults(root).clickhouseBinary()),
                "clickhouse-server (apt-get install -y clickhouse-server)");
        ServiceRequirement.requireExecutable("npm", "apt-get install npm");
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort(); // closed again when the demo runs
        }
        int[] tcp = LocalPorts.free(3, closed);
        env = new HashMap<>(System.getenv());
        env.put("FLOWHOUSE_CLICKHOUSE_HTTP_PORT", Integer.toString(tcp[0]));
        env.put("FLOWHOUSE_CLICKHOUSE_NATIVE_PORT", Integer.toString(tcp[1]));
        env.put("FLOWHOUSE_CONSOLE_LISTEN_PORT", Integer.toString(tcp[2]));
        env.put("FLOWHOUSE_GEO_DIR", empty.resolve("geo").toString());
        env.put("npm_config_registry", "http://127.0.0.1:" + closed + "/");
        env.put("npm_config_cache", empty.resolve("npm-cache").toString());
        env.put("npm_config_fetch_retries", "0");
    }

    @AfterAll
    static void down() {
        if (root != null) {
            flowhouse("services", "down");
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void saysWhyAndRunsWithoutEnrichment() {
        Result demo = flowhouse("demo", "--seconds", "5", "--rate", "200", "--exporters", "2");
        assertThat(demo.code()).as(demo.toString()).isZero();
        assertThat(demo.err())
                .contains("fetch-geo-data: npm pack failed (registry http://127.0.0.1:")
                .contains("ECONNREFUSED")
                .contains("enrichment off: no geo data");
        assertThat(demo.out()).contains("every flow exactly once").doesNotContain("as_names:");
        assertThat(Files.exists(empty.resolve("geo/asn.mmdb"))).isFalse();
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
