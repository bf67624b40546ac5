// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.config.docs.ConfigDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The README's key table and the example YAML file are generated from {@link AgentKeys}. When this
 * fails, regenerate: {@code mvn test -pl capture-agent -Dtest=AgentConfigDocsTest
 * -Dconfig.docs.update=true}.
 */
class AgentConfigDocsTest {

    static final String YAML_HEADER =
            String.join(
                    "\n",
                    "# SPDX-License-Identifier: Apache-2.0",
                    "# Flowhouse capture agent: every key with its default, generated from AgentKeys",
                    "# (AgentConfigDocsTest). `./flowhouse agent --config FILE`; the environment"
                            + " (FLOWHOUSE_AGENT_*)",
                    "# and flags override the file. Unknown keys are errors.",
                    "");

    @Test
    void readmeKeyTableMatchesTheDeclarations() {
        assertThat(ConfigDocs.checkReadme(Path.of("README.md"), AgentKeys.SCHEMA)).isNull();
    }

    @Test
    void exampleFileMatchesTheDeclarations() {
        assertThat(
                        ConfigDocs.check(
                                Path.of("src/main/resources/flowhouse-agent.yaml"),
                                ConfigDocs.yamlExample(AgentKeys.SCHEMA, YAML_HEADER)))
                .isNull();
    }
}
