// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.config.docs.ConfigDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The enrichment key table is generated from its declarations. When this fails, regenerate: {@code
 * mvn test -pl enrichment -Dtest=EnrichConfigDocsTest -Dconfig.docs.update=true}.
 */
class EnrichConfigDocsTest {

    @Test
    void keyTable() {
        assertThat(
                        ConfigDocs.checkReadme(
                                Path.of("README.md"), EnrichKeys.SCHEMA, "enrich", EnrichKeys.KEYS))
                .isNull();
    }
}
