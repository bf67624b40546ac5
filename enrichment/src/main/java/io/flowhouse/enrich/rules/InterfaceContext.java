// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

/**
 * One interface of a flow as stored: name, description and speed (from the sources, overridden by
 * the rules), and the rules' classification: boundary, provider, connectivity. Empty strings and 0
 * mean unknown.
 */
public record InterfaceContext(
        String name,
        String description,
        long speedMbps,
        Boundary boundary,
        String provider,
        String connectivity) {

    public static final InterfaceContext UNKNOWN =
            new InterfaceContext("", "", 0, Boundary.UNDEFINED, "", "");
}
