// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.io.Serializable;

/**
 * Bounds on what a {@link TemplateCache} holds, in entries and in bytes: one template may declare
 * 16 K fields, so a cap on the number of templates alone does not bound memory, state or the
 * template archive. A template refused for its size is {@link TemplateStatus#REJECTED_TOO_LARGE}
 * (the decoder counts {@code TEMPLATE_TOO_LARGE}); one refused because a cap is reached is {@link
 * TemplateStatus#REJECTED_LIMIT} ({@code TEMPLATE_FLOOD}). Bytes are {@link TemplateWire} bytes
 * ({@code 7 + 8 * fields} per template), what Flink state and the archive store.
 *
 * @param maxTemplatesPerExporter templates (data and options) one exporter may hold across its
 *     scopes
 * @param maxFieldsPerTemplate fields one template may declare
 * @param maxBytesPerScope template bytes one scope (exporter, version, domain) may hold
 */
public record TemplateLimits(
        int maxTemplatesPerExporter, int maxFieldsPerTemplate, int maxBytesPerScope)
        implements Serializable {

    /**
     * Real exporters use a few dozen templates; 4,096 leaves room for many domains and stays far
     * from every id of one domain (65,280).
     */
    public static final int DEFAULT_MAX_TEMPLATES_PER_EXPORTER = 4096;

    /**
     * Real templates have tens of fields (nProbe's largest about 100); 1,024 fields is 8 KiB on the
     * wire, where RFC 7011 allows 16,383.
     */
    public static final int DEFAULT_MAX_FIELDS_PER_TEMPLATE = 1024;

    /** 256 KiB: a thousand templates of 30 fields, or 32 of the largest allowed, per scope. */
    public static final int DEFAULT_MAX_BYTES_PER_SCOPE = 256 * 1024;

    private static final TemplateLimits DEFAULTS =
            new TemplateLimits(
                    DEFAULT_MAX_TEMPLATES_PER_EXPORTER,
                    DEFAULT_MAX_FIELDS_PER_TEMPLATE,
                    DEFAULT_MAX_BYTES_PER_SCOPE);

    public TemplateLimits {
        if (maxTemplatesPerExporter < 1) {
            throw new IllegalArgumentException(
                    "maxTemplatesPerExporter " + maxTemplatesPerExporter + " (expected: >= 1)");
        }
        if (maxFieldsPerTemplate < 1 || maxFieldsPerTemplate > 0xffff) {
            throw new IllegalArgumentException(
                    "maxFieldsPerTemplate " + maxFieldsPerTemplate + " (expected: 1..65535)");
        }
        int one = TemplateWire.encodedTemplateSize(maxFieldsPerTemplate);
        if (maxBytesPerScope < one) {
            throw new IllegalArgumentException(
                    "maxBytesPerScope "
                            + maxBytesPerScope
                            + " (expected: >= "
                            + one
                            + ", one template of maxFieldsPerTemplate fields)");
        }
    }

    public static TemplateLimits defaults() {
        return DEFAULTS;
    }

    /** The same limits with another cap on templates per exporter. */
    public TemplateLimits withMaxTemplatesPerExporter(int max) {
        return new TemplateLimits(max, maxFieldsPerTemplate, maxBytesPerScope);
    }

    /**
     * What the limits say about storing {@code t} in a scope that holds {@code scopeBytes} bytes of
     * templates, {@code replacedBytes} of which {@code t} replaces; null if it may be stored.
     */
    public TemplateStatus check(Template t, long scopeBytes, long replacedBytes) {
        if (t.fields().size() > maxFieldsPerTemplate) {
            return TemplateStatus.REJECTED_TOO_LARGE;
        }
        long after = scopeBytes - replacedBytes + TemplateWire.encodedSize(t);
        if (after > maxBytesPerScope && after > scopeBytes) {
            return TemplateStatus.REJECTED_LIMIT;
        }
        return null;
    }
}
