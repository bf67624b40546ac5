// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The open databases the tests read: fetched once per machine by {@code
 * enrichment/scripts/fetch-geo-data.sh} into {@code $FLOWHOUSE_GEO_DIR} (else ~/.cache); this runs
 * the script when they are missing. Without npm or python3 the tests are skipped locally and fail
 * in CI ({@code flowhouse.it.required}).
 */
final class GeoData {

    private static Path dir;

    private GeoData() {}

    static synchronized Path dir() throws IOException, InterruptedException {
        if (dir != null) {
            return dir;
        }
        Path root = Path.of(System.getProperty("flowhouse.root.dir", ".."));
        Path script = root.resolve("enrichment/scripts/fetch-geo-data.sh");
        require(Files.isExecutable(script), script.toString());
        Process p =
                new ProcessBuilder("bash", script.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        boolean done = p.waitFor(20, TimeUnit.MINUTES);
        require(
                done && p.exitValue() == 0,
                "geo data from fetch-geo-data.sh (npm, python3-venv; see its output above)");
        dir = Path.of(out);
        assertThat(dir.resolve("country.mmdb")).exists();
        assertThat(dir.resolve("asn.mmdb")).exists();
        return dir;
    }

    /** Skips locally, fails when {@code flowhouse.it.required} is true (CI). */
    static void require(boolean available, String what) {
        if (available) {
            return;
        }
        if (Boolean.parseBoolean(System.getProperty("flowhouse.it.required", "false"))) {
            throw new AssertionError("missing: " + what + " (flowhouse.it.required=true)");
        }
        Assumptions.abort("missing: " + what + " (set -Dflowhouse.it.required=true to fail)");
    }
}
