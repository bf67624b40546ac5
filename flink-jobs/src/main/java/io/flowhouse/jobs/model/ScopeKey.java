// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One template scope of the current exporter (the Flink key): a protocol version and an observation
 * domain. Keys the options data and the statistics of the scope in keyed state.
 *
 * @param version 5, 9 or 10 (0: datagrams that did not decode)
 * @param observationDomainId observation domain / source id / v5 engine (uint32)
 */
@TypeInfo(ScopeKeyTypeInfo.Factory.class)
public record ScopeKey(int version, long observationDomainId) {

    /** A template of this scope. */
    public TemplateStateKey template(int templateId) {
        return new TemplateStateKey(version, observationDomainId, templateId);
    }

    @Override
    public String toString() {
        return "v" + version + " domain " + observationDomainId;
    }
}
