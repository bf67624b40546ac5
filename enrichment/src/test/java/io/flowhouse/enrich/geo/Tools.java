// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

final class Tools {

    private Tools() {}

    /** Whether {@code name} is an executable on PATH. */
    static boolean onPath(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                return true;
            }
        }
        return false;
    }
}
