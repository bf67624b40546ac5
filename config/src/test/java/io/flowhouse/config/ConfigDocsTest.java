// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.config.docs.ConfigDocs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigDocsTest {

    @Test
    void theExampleFileReadsBackToTheDefaults() {
        String yaml = ConfigDocs.yamlExample(ConfigResolverTest.SCHEMA, "# example\n");
        Config fromFile = ConfigResolver.of(ConfigResolverTest.SCHEMA).yaml(yaml, "x").resolve();
        Config defaults = ConfigResolver.of(ConfigResolverTest.SCHEMA).resolve();
        for (Key<?> k : ConfigResolverTest.SCHEMA.keys()) {
            assertThat((Object) fromFile.get(k)).as(k.name()).isEqualTo(defaults.get(k));
        }
        assertThat(yaml)
                .contains("udp:\n  # SO_RCVBUF asked of the kernel. Default: 32MiB.\n")
                .contains("  receive-buffer: 32MiB\n")
                .contains("  # sockets:\n")
                .contains("  # password:\n");
    }

    @Test
    void tableBetweenMarkersAndDriftCheck(@TempDir Path dir) throws Exception {
        Path readme = dir.resolve("README.md");
        Files.writeString(
                readme,
                "# x\n\n<!-- config-keys:flowhouse.test -->\nstale\n"
                        + "<!-- /config-keys:flowhouse.test -->\nafter\n");
        assertThat(ConfigDocs.checkReadme(readme, ConfigResolverTest.SCHEMA))
                .contains("differs from the key declarations")
                .contains("-Dconfig.docs.update=true");
        String fixed = ConfigDocs.withTable(Files.readString(readme), ConfigResolverTest.SCHEMA);
        assertThat(fixed)
                .contains("| `udp.receive-buffer` | size 64KiB.. | `32MiB` | SO_RCVBUF asked of")
                .contains(
                        "| `udp.listen` | list of host:port | `[::]:2055` | Addresses. Flag `--listen`. |")
                .contains("Secret: file or environment only, never printed.")
                .endsWith("<!-- /config-keys:flowhouse.test -->\nafter\n");
        Files.writeString(readme, fixed);
        assertThat(ConfigDocs.checkReadme(readme, ConfigResolverTest.SCHEMA)).isNull();
        assertThatThrownBy(() -> ConfigDocs.withTable("no markers", ConfigResolverTest.SCHEMA))
                .hasMessageContaining("<!-- config-keys:flowhouse.test -->");
    }

    @Test
    void tableOfOnePart(@TempDir Path dir) throws Exception {
        Path readme = dir.resolve("README.md");
        Files.writeString(
                readme,
                "<!-- config-keys:flowhouse.test:kafka -->\n<!-- /config-keys:flowhouse.test:kafka -->\n");
        List<Key<?>> kafka = List.of(ConfigResolverTest.LINGER, ConfigResolverTest.PROPS);
        String table =
                ConfigDocs.withTable(
                        Files.readString(readme), ConfigResolverTest.SCHEMA, "kafka", kafka);
        assertThat(table)
                .contains("(`FLOWHOUSE_TEST_KAFKA_LINGER_MS`)")
                .contains("| `kafka.linger-ms` |")
                .doesNotContain("udp.");
        Files.writeString(readme, table);
        assertThat(ConfigDocs.checkReadme(readme, ConfigResolverTest.SCHEMA, "kafka", kafka))
                .isNull();
    }
}
