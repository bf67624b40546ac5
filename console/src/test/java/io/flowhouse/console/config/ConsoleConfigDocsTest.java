// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.config.docs.ConfigDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's key table is generated from {@link ConsoleKeys}. When this fails, regenerate: {@code
 * mvn test -pl console -Dtest=ConsoleConfigDocsTest -Dconfig.docs.update=true}.
 */
class ConsoleConfigDocsTest {

    @Test
    void readmeKeyTableMatchesTheDeclarations() {
        assertThat(ConfigDocs.checkReadme(Path.of("README.md"), ConsoleKeys.SCHEMA)).isNull();
    }
}
