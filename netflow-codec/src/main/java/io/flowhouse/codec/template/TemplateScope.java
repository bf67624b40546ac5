// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import io.flowhouse.codec.ExporterKey;

/**
 * Where template ids are unique (RFC 7011 section 8): one exporter (transport session), one
 * protocol version, one observation domain (IPFIX) or source id (v9).
 *
 * @param exporter the exporter
 * @param version 9 or 10
 * @param observationDomainId observation domain id / source id (uint32)
 */
public record TemplateScope(ExporterKey exporter, int version, long observationDomainId) {

    public TemplateScope {
        if (exporter == null) {
            throw new IllegalArgumentException("exporter is null");
        }
    }

    /** As the record's, checking identity first (cache keys are usually the same instance). */
    @Override
    public boolean equals(Object o) {
        return o == this
                || (o instanceof TemplateScope s
                        && observationDomainId == s.observationDomainId
                        && version == s.version
                        && exporter.equals(s.exporter));
    }

    /** The value the record would compute, written out (hashed on every cache look-up). */
    @Override
    public int hashCode() {
        return (31 * exporter.hashCode() + version) * 31 + Long.hashCode(observationDomainId);
    }

    public TemplateKey key(int templateId) {
        return new TemplateKey(this, templateId);
    }
}
