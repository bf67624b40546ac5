// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.access;

import java.nio.file.Path;

/**
 * Where the console finds what it needs of the local services (./flowhouse services): the
 * ClickHouse server's directory (for the console's users.d file) and the file that keeps the
 * console's own generated password. The console never connects as the administrator.
 */
public final class ServicesLayout {

    private ServicesLayout() {}

    /** The server's directory: {@code STATE/clickhouse} (local-services' ClickHouseServer). */
    public static Path serverDir(Path stateDir) {
        return stateDir.resolve("clickhouse");
    }

    /** The console's generated password: {@code STATE/console/clickhouse-password}. */
    public static Path passwordFile(Path stateDir) {
        return stateDir.resolve("console").resolve("clickhouse-password");
    }
}
