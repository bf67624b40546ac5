// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

/**
 * What one template scope (version, domain) of the current exporter holds in the decode state, so
 * that the per-scope template bytes are checked without walking the templates, and a "withdraw all"
 * walks them only when the scope has templates of that kind.
 *
 * @param templateBytes {@code TemplateWire} bytes of the scope's templates
 * @param dataTemplates data templates of the scope
 * @param optionsTemplates options templates of the scope
 * @param optionsBytes stored bytes of the scope's options data (0: none)
 */
public record ScopeUsage(
        long templateBytes, int dataTemplates, int optionsTemplates, long optionsBytes) {

    public static final ScopeUsage EMPTY = new ScopeUsage(0, 0, 0, 0);

    public boolean empty() {
        return dataTemplates == 0 && optionsTemplates == 0 && optionsBytes == 0;
    }

    public int templates(boolean options) {
        return options ? optionsTemplates : dataTemplates;
    }

    /** With a template of {@code bytes} added (+1) or removed (-1). */
    public ScopeUsage withTemplate(boolean options, long bytes, int sign) {
        return new ScopeUsage(
                templateBytes + sign * bytes,
                dataTemplates + (options ? 0 : sign),
                optionsTemplates + (options ? sign : 0),
                optionsBytes);
    }

    public ScopeUsage withOptionsBytes(long bytes) {
        return new ScopeUsage(templateBytes, dataTemplates, optionsTemplates, bytes);
    }
}
