// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.util.List;

/**
 * A template record or options template record (RFC 7011 sections 3.4.1, 3.4.2; RFC 3954 section
 * 5.2, 6.1). Plain immutable value, so Flink state and the templates topic can store it (see {@link
 * TemplateWire}).
 *
 * @param templateId template id (uint16, >= 256)
 * @param fields the fields in wire order; for an options template, the scope fields first
 * @param scopeFieldCount number of leading scope fields; 0 for a data template, >= 1 for options
 */
public record Template(int templateId, List<FieldSpecifier> fields, int scopeFieldCount) {

    public Template {
        if (templateId < 0 || templateId > 0xffff) {
            throw new IllegalArgumentException(
                    "template id " + templateId + " (expected: 0..65535)");
        }
        fields = List.copyOf(fields);
        if (scopeFieldCount < 0 || scopeFieldCount > fields.size()) {
            throw new IllegalArgumentException(
                    "scope field count "
                            + scopeFieldCount
                            + " (expected: 0.."
                            + fields.size()
                            + ")");
        }
    }

    /** A data template. */
    public static Template of(int templateId, List<FieldSpecifier> fields) {
        return new Template(templateId, fields, 0);
    }

    public boolean isOptions() {
        return scopeFieldCount > 0;
    }

    /** True if any field is variable length. */
    public boolean hasVariableLength() {
        for (FieldSpecifier f : fields) {
            if (f.isVariableLength()) {
                return true;
            }
        }
        return false;
    }

    /**
     * The smallest record this template can describe: fixed fields at their length, variable fields
     * at their 1-byte length prefix.
     */
    public int minRecordLength() {
        int n = 0;
        for (FieldSpecifier f : fields) {
            n += f.isVariableLength() ? 1 : f.length();
        }
        return n;
    }
}
