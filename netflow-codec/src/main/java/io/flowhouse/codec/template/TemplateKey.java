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

    /** As the record's, checking identity first (cache keys are usually the same instance). */
    @Override
    public boolean equals(Object o) {
        return o == this
                || (o instanceof TemplateKey k
                        && templateId == k.templateId
                        && scope.equals(k.scope));
    }

    /** The value the record would compute, written out (hashed on every cache look-up). */
    @Override
    public int hashCode() {
        return 31 * scope.hashCode() + templateId;
    }
}
