// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

/**
 * A template's identity: its scope plus its id.
 *
 * @param scope exporter, version and observation domain
 * @param templateId template id (uint16, 256..65535)
 */
public record TemplateKey(TemplateScope scope, int templateId) {

    public TemplateKey {
        if (scope == null) {
            throw new IllegalArgumentException("scope is null");
        }
    }
}
