// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Finds the peer collectors the harness compares against, installing them from their own registries
 * when missing: goflow2 with {@code go install} (Go module proxy), nfdump's nfcapd and sfcapd with
 * {@code apt-get}.
 */
final class PeerTools {

    /** The goflow2 release the published numbers use. */
    static final String GOFLOW2_MODULE = "github.com/netsampler/goflow2/v2/cmd/goflow2@v2.2.6";

    private PeerTools() {}

    static Optional<Path> find(String name, List<Path> extra) {
        for (Path p : extra) {
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(File.pathSeparator)) {
                Path p = Path.of(dir, name);
                if (!dir.isEmpty() && Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return Optional.of(p);
                }
            }
        }
        return Optional.empty();
    }

    static Path goBin() {
        return Path.of(System.getProperty("user.home"), "go", "bin");
    }

    /** goflow2, installed with {@code go install} into ~/go/bin when missing. */
    static Path goflow2(PrintStream log) throws Exception {
        Optional<Path> found = find("goflow2", List.of(goBin().resolve("goflow2")));
        if (found.isPresent()) {
            return found.get();
        }
        Path go =
                find("go", List.of(Path.of("/usr/local/go/bin/go")))
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "goflow2 is missing and so is Go to install it"
                                                        + " (apt-get install golang)"));
        log.println("bench: installing goflow2: go install " + GOFLOW2_MODULE);
        ProcessBuilder pb =
                new ProcessBuilder(go.toString(), "install", GOFLOW2_MODULE).inheritIO();
        pb.environment().put("GOBIN", goBin().toString());
        Process p = pb.start();
        if (!p.waitFor(300, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("go install " + GOFLOW2_MODULE + " failed");
        }
        return goBin().resolve("goflow2");
    }

    /** nfcapd and nfdump, installed with apt-get when missing. */
    static Path[] nfdump(PrintStream log) throws Exception {
        return capd(log, "nfcapd", "nfdump");
    }

    /** sfcapd (nfdump's sFlow collector) and nfdump, installed with apt-get when missing. */
    static Path[] sfcapd(PrintStream log) throws Exception {
        return capd(log, "sfcapd", "nfdump-sflow");
    }

    private static Path[] capd(PrintStream log, String collector, String pkg) throws Exception {
        Optional<Path> capd = find(collector, List.of());
        Optional<Path> nfdump = find("nfdump", List.of());
        if (capd.isEmpty() || nfdump.isEmpty()) {
            log.println("bench: installing " + pkg + ": apt-get install -y " + pkg);
            Process p = new ProcessBuilder("apt-get", "install", "-y", pkg).inheritIO().start();
            if (!p.waitFor(300, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("apt-get install " + pkg + " failed (run as root)");
            }
            capd = find(collector, List.of());
            nfdump = find("nfdump", List.of());
        }
        return new Path[] {
            capd.orElseThrow(() -> new IllegalStateException(collector + " missing")),
            nfdump.orElseThrow(() -> new IllegalStateException("nfdump missing"))
        };
    }
}
