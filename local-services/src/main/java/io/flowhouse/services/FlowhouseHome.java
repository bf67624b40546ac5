// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where the checkout is and where local state goes. The root comes from {@code -Dflowhouse.root}
 * (set by the {@code ./flowhouse} script) or is the first directory upwards from {@code user.dir}
 * that holds the {@code flowhouse} script; the state directory is {@code ROOT/.flowhouse} unless
 * {@code FLOWHOUSE_STATE_DIR} says otherwise.
 */
public record FlowhouseHome(Path root, Path stateDir) {

    public static final String ROOT_PROPERTY = "flowhouse.root";

    public static FlowhouseHome detect() {
        Path root = detectRoot();
        String state = System.getenv("FLOWHOUSE_STATE_DIR");
        Path stateDir =
                state == null || state.isBlank()
                        ? root.resolve(".flowhouse")
                        : Path.of(state).toAbsolutePath().normalize();
        return new FlowhouseHome(root, stateDir);
    }

    public static Path detectRoot() {
        String configured = System.getProperty(ROOT_PROPERTY);
        if (configured != null && !configured.isBlank()) {
            return Path.of(configured).toAbsolutePath().normalize();
        }
        Path start = Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize();
        for (Path dir = start; dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("flowhouse"))
                    && Files.isDirectory(dir.resolve("launcher"))) {
                return dir;
            }
        }
        return start;
    }
}
