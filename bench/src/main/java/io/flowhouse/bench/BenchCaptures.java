// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the bench finds the repository's test captures ({@code testdata/}). */
final class BenchCaptures {

    private BenchCaptures() {}

    /**
     * The {@code testdata/} directory: {@code -Dflowhouse.testdata.dir}, else the first one holding
     * a {@code README.md} walking up from {@code user.dir}; null when there is none (a bench that
     * can do without captures says so and goes on).
     */
    static Path dir() {
        String configured = System.getProperty("flowhouse.testdata.dir");
        if (configured != null && !configured.isBlank()) {
            Path dir = Path.of(configured).toAbsolutePath().normalize();
            return Files.isDirectory(dir) ? dir : null;
        }
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
                dir != null;
                dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("testdata/README.md"))) {
                return dir.resolve("testdata");
            }
        }
        return null;
    }
}
