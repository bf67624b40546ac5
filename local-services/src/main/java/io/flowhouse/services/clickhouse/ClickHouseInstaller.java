// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.clickhouse;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Installs Debian's {@code clickhouse-server} and {@code clickhouse-client} with apt when the
 * server is missing and the launcher runs as root. The package's own system service, if apt starts
 * one, is stopped again: {@code ./flowhouse services} runs its own server in the state directory.
 */
public final class ClickHouseInstaller {

    private ClickHouseInstaller() {}

    /** Returns true when the binary exists afterwards. */
    public static boolean ensureInstalled(Path binary, PrintStream out)
            throws InterruptedException {
        if (Files.isExecutable(binary)) {
            return true;
        }
        if (!isRoot()) {
            out.println(
                    "clickhouse-server is missing at "
                            + binary
                            + "; install it with: sudo apt-get install -y clickhouse-server"
                            + " clickhouse-client");
            return false;
        }
        out.println("clickhouse-server is missing: installing it with apt-get (Debian package)");
        boolean installed =
                run(List.of("apt-get", "install", "-y", "clickhouse-server", "clickhouse-client"))
                        || (run(List.of("apt-get", "update"))
                                && run(
                                        List.of(
                                                "apt-get",
                                                "install",
                                                "-y",
                                                "clickhouse-server",
                                                "clickhouse-client")));
        if (installed && Files.isExecutable(Path.of("/usr/sbin/service"))) {
            // Our server runs from the state dir; the package's system service must not hold ports.
            run(List.of("service", "clickhouse-server", "stop"));
        }
        return Files.isExecutable(binary);
    }

    private static boolean run(List<String> command) throws InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
        builder.environment().put("DEBIAN_FRONTEND", "noninteractive");
        try {
            Process process = builder.start();
            if (!process.waitFor(15, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                return false;
            }
            return process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean isRoot() {
        try {
            Process id = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
            String uid =
                    new String(
                                    id.getInputStream().readAllBytes(),
                                    java.nio.charset.StandardCharsets.UTF_8)
                            .trim();
            id.waitFor(10, TimeUnit.SECONDS);
            return uid.equals("0");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
