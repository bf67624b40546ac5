// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ScopeKey;
import java.util.List;

/**
 * The decode step's side of the compacted templates topic: what a datagram taught goes out on
 * {@link DecodeOutputs#TEMPLATES} (under the key's exporter: port 0 with address-only scope), and
 * entries read back at job start go into the cache, so a replay from any offset decodes data whose
 * template came earlier.
 */
final class TemplateArchive {

    private final StateBackedTemplateCache cache;
    private final boolean enabled;

    TemplateArchive(StateBackedTemplateCache cache, boolean enabled) {
        this.cache = cache;
        this.enabled = enabled;
    }

    /**
     * Archives what the last decode taught.
     *
     * @return how many templates and options data it taught
     */
    int archiveLearned(DecodeRawFlowFunction.Context ctx, ExporterKey owner, long receivedMillis) {
        List<StateBackedTemplateCache.Learned> learned = cache.learned();
        if (!enabled) {
            return learned.size();
        }
        for (StateBackedTemplateCache.Learned l : learned) {
            ctx.output(
                    DecodeOutputs.TEMPLATES,
                    new ArchivedTemplate(
                            owner.address(),
                            owner.port(),
                            l.scope().version(),
                            l.scope().observationDomainId(),
                            l.options() ? ArchivedTemplate.OPTIONS_DATA : l.templateId(),
                            l.wire(),
                            receivedMillis));
        }
        return learned.size();
    }

    /** Installs an archived template or options data; returns whether state changed. */
    boolean restore(ArchivedTemplate t) {
        ScopeKey scope = new ScopeKey(t.version(), t.observationDomainId());
        return t.isOptionsData()
                ? cache.restoreOptions(scope, t.wire())
                : cache.restore(scope.template(t.templateId()), t.wire(), t.learnedMillis());
    }
}
