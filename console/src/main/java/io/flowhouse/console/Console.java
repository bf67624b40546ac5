// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console;

import io.flowhouse.console.access.ConsoleUser;
import io.flowhouse.console.access.ServicesLayout;
import io.flowhouse.console.config.ConsoleConfig;
import io.flowhouse.console.query.ClickHouseReader;
import io.flowhouse.console.query.QueryException;
import io.flowhouse.console.query.QueryLog;
import io.flowhouse.console.server.ConsoleServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;

/**
 * Starts a console from a resolved configuration: its read-only user on the local ClickHouse (when
 * {@code clickhouse.local-user}), then the server. The typed entry point of {@code ./flowhouse
 * console}, {@code up} and {@code demo}, and of the tests.
 */
public final class Console {

    private Console() {}

    /**
     * Installs the user (local services) and starts serving; waits until the user can query.
     *
     * @throws IOException when the port cannot be bound or the user file written
     */
    public static ConsoleServer start(ConsoleConfig config) throws IOException {
        ConsoleConfig.ClickHouse c = config.clickhouse();
        String password;
        if (c.password() != null) {
            password = c.password();
        } else if (c.localUser()) {
            password =
                    ConsoleUser.install(
                            ServicesLayout.serverDir(c.stateDir()),
                            ServicesLayout.passwordFile(c.stateDir()),
                            c);
        } else {
            password = "";
        }
        awaitUser(config, password, Duration.ofSeconds(30));
        return ConsoleServer.start(config, () -> password);
    }

    /** The server reloads users.d every few seconds: wait until the user answers. */
    private static void awaitUser(ConsoleConfig config, String password, Duration limit) {
        ClickHouseReader reader =
                new ClickHouseReader(
                        config.clickhouse().url(),
                        "system",
                        config.clickhouse().user(),
                        () -> password,
                        Duration.ofSeconds(5));
        long deadline = System.nanoTime() + limit.toNanos();
        while (true) {
            try {
                reader.query("SELECT 1", new QueryLog());
                return;
            } catch (QueryException e) {
                if (System.nanoTime() > deadline) {
                    throw new UncheckedIOException(
                            new IOException(
                                    "the console's user "
                                            + config.clickhouse().user()
                                            + " cannot query "
                                            + config.clickhouse().url()
                                            + ": "
                                            + e.getMessage()));
                }
                try {
                    Thread.sleep(250);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", ie);
                }
            }
        }
    }
}
