// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.access;

import java.nio.file.Path;

/**
 * How the console reaches the local services' ClickHouse (./flowhouse services), in one place: the
 * server's directory (for the console's users.d file), where the console keeps its password, and
 * the administrator's credentials the way {@code ./flowhouse query} reads them today (user {@code
 * default}, no password: the services' ClickHouse listens on loopback only). When the local
 * services get a generated administrator password, {@link #adminPassword} reads it; nothing else
 * changes. The console itself never queries as the administrator: only its performance harness
 * writes rows with it.
 */
public final class LocalClickHouse {

    private LocalClickHouse() {}

    /** The server's directory: {@code STATE/clickhouse} (local-services' ClickHouseServer). */
    public static Path serverDir(Path stateDir) {
        return stateDir.resolve("clickhouse");
    }

    /** The console's generated password: {@code STATE/console/clickhouse-password}. */
    public static Path passwordFile(Path stateDir) {
        return stateDir.resolve("console").resolve("clickhouse-password");
    }

    /** The administrator, as {@code ./flowhouse query} connects. */
    public static String adminUser() {
        return "default";
    }

    /** The administrator's password, as {@code ./flowhouse query} reads it: none today. */
    public static String adminPassword(Path stateDir) {
        return "";
    }
}
