// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.ie;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.template.FieldSpecifier;
import java.io.StringReader;
import java.util.List;
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
    void knowsTheElementsAssignedSinceThe2013Export() {
        InformationElementRegistry r = InformationElementRegistry.iana();
        InformationElement original = r.find(403).orElseThrow();
        assertThat(original.name()).isEqualTo("originalExporterIPv4Address");
        assertThat(original.dataType()).isEqualTo(DataType.IPV4_ADDRESS);
        assertThat(r.find(458).orElseThrow().name()).isEqualTo("sourceTransportPortsLimit");
        assertThat(r.find(491).orElseThrow().dataType()).isEqualTo(DataType.BASIC_LIST);
        assertThat(r.find(527).orElseThrow().name()).isEqualTo("udpExID");
        assertThat(r.find(529).orElseThrow().name()).isEqualTo("udpUnsafeExIDList");
        assertThat(r.find(530)).isEmpty();
        // unsigned256 (RFC 9740) has no DataType: unknown, so a decoder skips it by length
        assertThat(r.find(515).orElseThrow().dataType()).isEqualTo(DataType.UNKNOWN);
        assertThat(r.find(FieldSpecifier.REVERSE_PEN, 458).orElseThrow().name())
                .isEqualTo("reverseSourceTransportPortsLimit");
    }

    @Test
    void replacesExportRowsIanaChangedAndKeepsTheRest() {
        InformationElementRegistry r = InformationElementRegistry.iana();
        assertThat(r.find(6).orElseThrow().dataType()).isEqualTo(DataType.UNSIGNED16); // RFC 7125
        assertThat(r.find(89).orElseThrow().name()).isEqualTo("forwardingStatus");
        assertThat(r.find(84).orElseThrow().name()).isEqualTo("samplerName");
        assertThat(r.find(278).orElseThrow().name()).isEqualTo("newConnectionDeltaCount");
        assertThat(r.find(92).orElseThrow().name()).isEqualTo("srcTrafficIndex");
        // the supplement (RFC 7270 rows with semantics) is loaded last and wins
        assertThat(r.find(34).orElseThrow().semantics()).isEqualTo("quantity");
        // untouched export rows keep their semantics and units
        assertThat(r.find(1).orElseThrow().units()).isEqualTo("octets");
        List<String> names =
                java.util.stream.IntStream.rangeClosed(1, 529)
                        .mapToObj(r::find)
                        .flatMap(java.util.Optional::stream)
                        .map(InformationElement::name)
                        .toList();
        assertThat(names).doesNotHaveDuplicates().noneMatch(n -> n.startsWith("Assigned for"));
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
