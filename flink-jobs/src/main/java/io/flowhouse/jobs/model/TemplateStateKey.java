// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * A template of the current exporter (the Flink key) in keyed state: version, observation domain
 * and template id.
 *
 * @param version 9 or 10
 * @param observationDomainId observation domain / source id (uint32)
 * @param templateId template id (uint16)
 */
@TypeInfo(TemplateStateKeyTypeInfo.Factory.class)
public record TemplateStateKey(int version, long observationDomainId, int templateId) {

    /** Whether the template belongs to {@code scope}. */
    public boolean in(ScopeKey scope) {
        return version == scope.version() && observationDomainId == scope.observationDomainId();
    }

    @Override
    public String toString() {
        return "v" + version + " domain " + observationDomainId + " template " + templateId;
    }
}
