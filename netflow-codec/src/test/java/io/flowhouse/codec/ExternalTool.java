// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Runs an installed tool (tshark, nfcapd, goflow2) for integration tests. A missing tool fails the
 * test when {@code flowhouse.it.required=true} (CI) and skips it otherwise.
 */
public final class ExternalTool {

    private ExternalTool() {}

    /** Fails or skips unless {@code command} runs. */
    public static void require(String... versionCommand) {
        boolean ok;
        try {
            Process p = new ProcessBuilder(versionCommand).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            ok = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            ok = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ok = false;
        }
        if (!ok) {
            String msg = versionCommand[0] + " is not installed or does not run";
            if (Boolean.parseBoolean(System.getProperty("flowhouse.it.required", "false"))) {
                fail(msg + " (flowhouse.it.required=true)");
            }
            Assumptions.abort(msg);
        }
    }

    /** Runs a command to completion (bounded) and returns its stdout; fails on a non-zero exit. */
    public static String run(long timeoutSeconds, String... command) throws Exception {
        Path out = Files.createTempFile("flowhouse-tool", ".out");
        Path err = Files.createTempFile("flowhouse-tool", ".err");
        try {
            Process p =
                    new ProcessBuilder(command)
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile())
                            .start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail(String.join(" ", command) + " did not finish in " + timeoutSeconds + " s");
            }
            if (p.exitValue() != 0) {
                fail(
                        String.join(" ", command)
                                + " exited "
                                + p.exitValue()
                                + ": "
                                + Files.readString(err, StandardCharsets.UTF_8));
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    public static List<String> args(String... a) {
        return new ArrayList<>(List.of(a));
    }
}
