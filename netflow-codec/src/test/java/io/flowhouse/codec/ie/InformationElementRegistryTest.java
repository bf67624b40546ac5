// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.ie;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.template.FieldSpecifier;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

class InformationElementRegistryTest {

    @Test
    void loadsTheIanaExport() {
        InformationElementRegistry r = InformationElementRegistry.iana();
        assertThat(r.find(1).orElseThrow().name()).isEqualTo("octetDeltaCount");
        assertThat(r.find(1).orElseThrow().dataType()).isEqualTo(DataType.UNSIGNED64);
        assertThat(r.find(27).orElseThrow().dataType()).isEqualTo(DataType.IPV6_ADDRESS);
        assertThat(r.find(154).orElseThrow().dataType()).isEqualTo(DataType.DATE_TIME_MICROSECONDS);
        assertThat(r.byName("flowStartMilliseconds").orElseThrow().id()).isEqualTo(152);
        assertThat(r.find(34).orElseThrow().name()).isEqualTo("samplingInterval");
        assertThat(r.find(FieldSpecifier.REVERSE_PEN, 2).orElseThrow().name())
                .isEqualTo("reversePacketDeltaCount");
        assertThat(r.find(FieldSpecifier.REVERSE_PEN, 148)).isEmpty(); // flowId is not reversible
        assertThat(r.size()).isGreaterThan(600);
    }

    @Test
    void parsesQuotedMultiLineFields() throws Exception {
        String csv =
                "ElementID,Name,Data Type,Data Type Semantics,Status,Description,Units\n"
                        + "1,octetDeltaCount,unsigned64,deltaCounter,current,\"a, \"\"quoted\"\"\nline\",octets\n"
                        + "5-7,Unassigned,,,,,\n";
        InformationElementRegistry r = InformationElementRegistry.load(new StringReader(csv));
        assertThat(r.find(1).orElseThrow().units()).isEqualTo("octets");
        assertThat(r.find(5)).isEmpty();
    }
}
