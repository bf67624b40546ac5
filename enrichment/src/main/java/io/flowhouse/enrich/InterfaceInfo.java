// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

/**
 * One interface of an exporter as a source knows it: {@code name} (SNMP {@code ifName}, IPFIX
 * {@code interfaceName}), {@code description} ({@code ifAlias}, else {@code ifDescr}, IPFIX {@code
 * interfaceDescription}), {@code speedMbps} ({@code ifHighSpeed}, 0 when unknown). Empty strings
 * mean unknown.
 */
public record InterfaceInfo(String name, String description, long speedMbps) {

    public InterfaceInfo {
        name = name == null ? "" : name;
        description = description == null ? "" : description;
        if (speedMbps < 0) {
            throw new IllegalArgumentException("speedMbps < 0: " + speedMbps);
        }
    }
}
