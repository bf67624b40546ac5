// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.ie;

/**
 * One information element of the IANA registry (or of an enterprise).
 *
 * @param id element id (15 bits)
 * @param enterpriseNumber private enterprise number, 0 for IANA
 * @param name camelCase name, e.g. {@code octetDeltaCount}
 * @param dataType abstract data type
 * @param semantics data type semantics, e.g. {@code deltaCounter}; empty if none
 * @param units units, e.g. {@code octets}; empty if none
 */
public record InformationElement(
        int id,
        long enterpriseNumber,
        String name,
        DataType dataType,
        String semantics,
        String units) {}
