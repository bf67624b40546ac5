// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs command-line tools with a time bound and returns their standard output. */
final class ToolOutput {
    private ToolOutput() {}

    static String run(Path workDir, long timeoutSeconds, List<String> command)
            throws IOException, InterruptedException {
        Path out = Files.createTempFile(workDir, "tool", ".out");
        Path err = Files.createTempFile(workDir, "tool", ".err");
        Process p =
                new ProcessBuilder(command)
                        .directory(workDir.toFile())
                        .redirectOutput(out.toFile())
                        .redirectError(err.toFile())
                        .start();
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                throw new IllegalStateException(
                        command + " did not finish in " + timeoutSeconds + " s");
            }
            if (p.exitValue() != 0) {
                throw new IllegalStateException(
                        command
                                + " exited "
                                + p.exitValue()
                                + ": "
                                + Files.readString(err, StandardCharsets.UTF_8));
            }
            return Files.readString(out, StandardCharsets.UTF_8);
        } finally {
            p.destroyForcibly();
        }
    }

    /** Sums comma- and newline-separated numbers (tshark prints repeated fields with commas). */
    static long sum(String fields) {
        long s = 0;
        for (String v : fields.split("[,\\s]+")) {
            if (!v.isEmpty()) {
                s += Long.parseLong(v);
            }
        }
        return s;
    }

    /** Counts comma- and newline-separated values. */
    static long count(String fields) {
        long n = 0;
        for (String v : fields.split("[,\\s]+")) {
            if (!v.isEmpty()) {
                n++;
            }
        }
        return n;
    }
}
