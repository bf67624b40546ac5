// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.model;

/** What a field holds, which decides how a filter value is parsed and bound. */
public enum FieldType {
    /** An address (IPv4 stored as {@code ::ffff:a.b.c.d}); a filter value may be a prefix. */
    ADDRESS,
    /** An integer within the field's range, or one of its words ({@code tcp}, {@code ingress}). */
    INTEGER,
    /** Text (names, countries: enrichment columns). */
    STRING
}
