// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The repository's {@code testdata/} directory: real exporter captures and their ground truth
 * ({@code testdata/*.pcap}, {@code golden/}; provenance in its README).
 *
 * <p>The directory is, in order: the system property {@value #PROPERTY} (the root pom sets it for
 * surefire and failsafe), else the first {@code testdata} holding a {@code README.md} found walking
 * up from {@code user.dir} (a test run from an IDE).
 */
public final class TestDataDir {

    /** System property naming the {@code testdata/} directory. */
    public static final String PROPERTY = "flowhouse.testdata.dir";

    private TestDataDir() {}

    /** The directory, if it can be found. */
    public static Optional<Path> locate() {
        String configured = System.getProperty(PROPERTY);
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured).toAbsolutePath().normalize();
            return Files.isDirectory(dir) ? Optional.of(dir) : Optional.empty();
        }
        Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
        for (; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("testdata").resolve("README.md"))) {
                return Optional.of(dir.resolve("testdata"));
            }
        }
        return Optional.empty();
    }

    /** The directory, or a skip (locally) / failure (CI) when it is missing. */
    public static Path testdata() {
        Optional<Path> dir = locate();
        ServiceRequirement.require(
                dir.isPresent(), "the repository's testdata/ directory (-D" + PROPERTY + "=DIR)");
        return dir.orElseThrow();
    }

    /**
     * A file under {@code testdata/}, e.g. {@code "netflow-v9-pmacct.pcap"} or {@code
     * "golden/ipfix-pmacct.nfdump.csv.gz"}; skips or fails when it is missing.
     */
    public static Path file(String relative) {
        Path path = testdata().resolve(relative);
        return ServiceRequirement.requireFile(path, "test data file " + relative);
    }
}
