// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import io.flowhouse.schema.v1.Flow;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The evolution rules of {@code flowhouse.v1.Flow}, enforced: every field ever published keeps its
 * number, name and type ({@code flow-v1-fields.txt} lists them and only grows), and numbers are
 * never reused. Adding a field: append its line to that file.
 */
class FlowSchemaEvolutionTest {

    private static List<String> published() throws IOException {
        try (InputStream in =
                Objects.requireNonNull(
                        FlowSchemaEvolutionTest.class.getResourceAsStream("/flow-v1-fields.txt"))) {
            List<String> lines = new ArrayList<>();
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!l.isBlank() && !l.startsWith("#")) {
                    lines.add(l.strip());
                }
            }
            return lines;
        }
    }

    private static List<String> current() {
        List<String> lines = new ArrayList<>();
        for (FieldDescriptor f : Flow.getDescriptor().getFields()) {
            lines.add(
                    f.getNumber()
                            + " "
                            + f.getName()
                            + " "
                            + f.getType().name().toLowerCase(java.util.Locale.ROOT));
        }
        return lines;
    }

    @Test
    void everyPublishedFieldKeepsItsNumberNameAndType() throws IOException {
        assertThat(current()).containsAll(published());
    }

    @Test
    void everyFieldIsPublishedAndNoNumberIsReused() throws IOException {
        // A new field not yet in the list fails here: add it there, with a new number.
        assertThat(published()).containsExactlyInAnyOrderElementsOf(current());
        assertThat(Flow.getDescriptor().getFields().stream().map(FieldDescriptor::getNumber))
                .doesNotHaveDuplicates();
        assertThat(Flow.getDescriptor().getFullName()).isEqualTo("flowhouse.v1.Flow");
    }
}
