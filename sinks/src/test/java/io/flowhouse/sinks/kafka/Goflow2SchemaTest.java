// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.testkit.ServiceRequirement;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Our copy of goflow2's schema is goflow2's own file, field for field: compared with {@code
 * pb/flow.proto} of the goflow2 release CI installs (v2.2.6, from the Go module cache that {@code
 * go install} fills), our header comments and the two java options aside.
 */
class Goflow2SchemaTest {

    private static final String GOFLOW2 = "github.com/netsampler/goflow2/v2@v2.2.6/pb/flow.proto";

    private static List<String> lines(Path p, boolean ours) throws IOException {
        return Files.readAllLines(p).stream()
                .filter(l -> !ours || !(l.startsWith("//") || l.startsWith("option java_")))
                .collect(Collectors.toList());
    }

    @Test
    void ourCopyIsGoflow2sSchema() throws IOException {
        String cache = System.getenv("GOMODCACHE");
        Path modCache =
                cache != null && !cache.isBlank()
                        ? Path.of(cache)
                        : Path.of(System.getProperty("user.home"), "go", "pkg", "mod");
        Path theirs =
                ServiceRequirement.requireFile(
                        modCache.resolve(GOFLOW2),
                        "goflow2's schema (go install github.com/netsampler/goflow2/v2/cmd/goflow2@v2.2.6, as .ci/run does)");
        Path ours = Path.of("../flow-schema/src/main/proto/goflow2/flow.proto");
        assertThat(lines(ours, true)).isEqualTo(lines(theirs, false));
        assertThat(Files.readString(ours)).contains("BSD 3-Clause");
    }
}
