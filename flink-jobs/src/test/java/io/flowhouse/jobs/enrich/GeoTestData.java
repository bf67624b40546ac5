// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.testkit.ServiceRequirement;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The open geo data of the enrichment tests, and libmaxminddb's reading of it. */
public final class GeoTestData {

    private GeoTestData() {}

    /** The fetched open data (enrichment/scripts/fetch-geo-data.sh; run here when missing). */
    public static Path dir() throws Exception {
        Path root = Path.of(System.getProperty("flowhouse.root.dir", ".."));
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

    public static String mmdblookup(Path file, String ip, String key) throws Exception {
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
}
