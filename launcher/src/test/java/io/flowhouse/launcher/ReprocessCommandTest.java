// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReprocessCommandTest {

    @TempDir Path dir;

    private int run(List<String> args, ByteArrayOutputStream out, ByteArrayOutputStream err)
            throws Exception {
        List<String> line = new ArrayList<>(List.of("job"));
        line.addAll(args);
        return InProcessCli.run(dir, line, out, err);
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
