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

    public TemplateKey key(int templateId) {
        return new TemplateKey(this, templateId);
    }
}
