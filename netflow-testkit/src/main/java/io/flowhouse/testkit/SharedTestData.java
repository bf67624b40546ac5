// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Finds the shared test data: real exporter captures and their ground truth ({@code
 * shared/testdata/*.pcap}, {@code golden/}).
 *
 * <p>The data lives next to the repository, not in it. The directory is, in order: the system
 * property {@value #PROPERTY} (failsafe sets it), else the first {@code shared} directory with a
 * {@code testdata} child found walking up from {@code user.dir}, or a sibling {@code ../shared} of
 * one of those directories.
 */
public final class SharedTestData {

    /** System property naming the shared directory (the one that holds {@code testdata/}). */
    public static final String PROPERTY = "flowhouse.shared.dir";

    private SharedTestData() {}

    /** The shared directory, if it can be found. */
    public static Optional<Path> locate() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured).toAbsolutePath().normalize();
            if (Files.isDirectory(dir.resolve("testdata"))) {
                return Optional.of(dir);
            }
        }
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
        for (; dir != null; dir = dir.getParent()) {
            if (Files.isDirectory(dir.resolve("shared").resolve("testdata"))) {
                return Optional.of(dir.resolve("shared"));
            }
            Path parent = dir.getParent();
            if (parent != null && Files.isDirectory(parent.resolve("shared/testdata"))) {
                return Optional.of(parent.resolve("shared"));
            }
        }
        return Optional.empty();
    }

    /** The testdata directory, or a skip (locally) / failure (CI) when it is missing. */
    public static Path testdata() {
        Optional<Path> shared = locate();
        ServiceRequirement.require(
                shared.isPresent(),
                "the shared test data directory (set -D" + PROPERTY + "=/path/to/shared)");
        return shared.orElseThrow().resolve("testdata");
    }

    /**
     * A file under {@code testdata/}, e.g. {@code "netflow-v9-pmacct.pcap"} or {@code
     * "golden/ipfix-pmacct.nfdump.csv.gz"}; skips or fails when it is missing.
     */
    public static Path file(String relative) {
        Path path = testdata().resolve(relative);
        return ServiceRequirement.requireFile(path, "shared test data file " + relative);
    }
}
