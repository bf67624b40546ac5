// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import org.apache.flink.api.common.typeinfo.TypeInfo;

/**
 * One place in the queue of held datagrams that wait for a template of the current exporter: the
 * template (version, domain, id) and the place's ordinal in that template's queue.
 */
@TypeInfo(WaitSlotTypeInfo.Factory.class)
public record WaitSlot(int version, long observationDomainId, int templateId, long ordinal) {

    public static WaitSlot of(TemplateStateKey template, long ordinal) {
        return new WaitSlot(
                template.version(), template.observationDomainId(), template.templateId(), ordinal);
    }
}
