// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.config.docs.ConfigDocs;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The SNMP key table in {@code enrichment/README.md} is generated from {@link SnmpKeys}. When this
 * fails, regenerate: {@code mvn test -pl enrichment -Dtest=SnmpConfigDocsTest
 * -Dconfig.docs.update=true}.
 */
class SnmpConfigDocsTest {

    @Test
    void snmpKeyTable() {
        assertThat(
                        ConfigDocs.checkReadme(
                                Path.of("README.md"), SnmpKeys.SCHEMA, "snmp", SnmpKeys.KEYS))
                .isNull();
    }
}
