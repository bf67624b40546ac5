// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.config.docs.ConfigDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The key table of the README is generated from {@link ServicesKeys}. When this fails, regenerate:
 * {@code mvn test -pl local-services -Dtest=ServicesConfigDocsTest -Dconfig.docs.update=true}.
 */
class ServicesConfigDocsTest {

    @Test
    void readmeKeyTableMatchesTheDeclarations() {
        assertThat(ConfigDocs.checkReadme(Path.of("README.md"), ServicesKeys.SCHEMA)).isNull();
    }
}
