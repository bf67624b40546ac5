// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.services.FlowhouseHome;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReprocessCommandTest {

    @TempDir Path dir;

    private int run(List<String> args, ByteArrayOutputStream out, ByteArrayOutputStream err)
            throws Exception {
        FlowhouseMain main =
                new FlowhouseMain(
                        new FlowhouseHome(dir, dir.resolve(".flowhouse")),
                        Map.of(),
                        new ByteArrayInputStream(new byte[0]));
        List<String> line = new ArrayList<>(List.of("job"));
        line.addAll(args);
        return main.run(
                line,
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void jobReprocessIsDispatchedAndPrintsItsUsage() throws Exception {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        assertThat(run(List.of("reprocess", "--help"), out, err)).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("./flowhouse job reprocess --from T1 --to T2")
                .contains("--target-database");
    }

    @Test
    void aRangeIsRequired() throws Exception {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        assertThat(run(List.of("reprocess", "--from", "earliest"), out, err))
                .isEqualTo(ExitCode.USAGE);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from and --to are required");
    }

    @Test
    void withoutAJobJarTheClusterPathSaysHowToBuildIt() throws Exception {
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code =
                run(
                        List.of(
                                "reprocess",
                                "--from",
                                "earliest",
                                "--to",
                                "latest",
                                "--jar",
                                dir.resolve("missing.jar").toString()),
                        out,
                        err);
        assertThat(code).isEqualTo(ExitCode.NOT_BUILT);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no job jar").contains("--local");
    }
}
