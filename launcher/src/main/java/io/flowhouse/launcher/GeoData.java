// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The open geo data ({@code country.mmdb}, {@code asn.mmdb}) of {@code
 * enrichment/scripts/fetch-geo-data.sh}: its cache directory, and the script run when the files are
 * not there yet.
 */
final class GeoData {

    private GeoData() {}

    /** {@code $FLOWHOUSE_GEO_DIR}, else {@code $XDG_CACHE_HOME/flowhouse/geo}, else ~/.cache. */
    static Path dir(Map<String, String> env) {
        String dir = env.get("FLOWHOUSE_GEO_DIR");
        if (dir != null && !dir.isBlank()) {
            return Path.of(dir);
        }
        String cache = env.get("XDG_CACHE_HOME");
        Path base =
                cache != null && !cache.isBlank()
                        ? Path.of(cache)
                        : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("flowhouse/geo");
    }

    /**
     * The directory with both files, fetched through npm by the script when needed (it does nothing
     * when the pinned versions are there); empty, with the reason on {@code err}, when that fails.
     */
    static Optional<Path> fetch(Path root, Map<String, String> env, PrintStream err)
            throws InterruptedException {
        Path dir = dir(env);
        Path script = root.resolve("enrichment/scripts/fetch-geo-data.sh");
        try {
            Path log = Files.createTempFile("flowhouse-geo-", ".log");
            try {
                ProcessBuilder pb =
                        new ProcessBuilder("bash", script.toString(), dir.toString())
                                .redirectErrorStream(true)
                                .redirectOutput(log.toFile());
                // The command's environment (npm's registry, cache and proxy settings among it).
                pb.environment().putAll(env);
                Process p = pb.start();
                if (!p.waitFor(20, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    err.println("   geo data: " + script + " took over 20 minutes; stopped");
                    return Optional.empty();
                }
                if (p.exitValue() != 0) {
                    String out = Files.readString(log, StandardCharsets.UTF_8).strip();
                    err.println(
                            "   geo data: "
                                    + script
                                    + " failed (exit "
                                    + p.exitValue()
                                    + "): "
                                    + out.replace("\n", "\n     "));
                    return Optional.empty();
                }
            } finally {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            err.println("   geo data: cannot run " + script + ": " + e.getMessage());
            return Optional.empty();
        }
        if (!Files.isReadable(dir.resolve("country.mmdb"))
                || !Files.isReadable(dir.resolve("asn.mmdb"))) {
            err.println("   geo data: " + dir + " lacks country.mmdb or asn.mmdb");
            return Optional.empty();
        }
        return Optional.of(dir);
    }
}
