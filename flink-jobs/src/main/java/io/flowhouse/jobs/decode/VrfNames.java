// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.TemplateWire;
import io.flowhouse.jobs.enrich.FlowEnrichment;
import io.flowhouse.jobs.model.ArchivedTemplate;
import java.util.List;
import java.util.Map;

/**
 * Tells decode's enrichment (when on) the VRF names of options data that changed, as {@link
 * InterfaceNames} tells interface names: only when a scope's options data is learned, changed or
 * restored, never per flow; a change tells only the names it added or changed.
 */
final class VrfNames {

    private VrfNames() {}

    /** The VRF names of every options data the last decode taught. */
    static void learned(List<StateBackedTemplateCache.Learned> learned, FlowEnrichment enrichment) {
        if (enrichment == null) {
            return;
        }
        for (StateBackedTemplateCache.Learned l : learned) {
            if (l.options()) {
                IpAddress exporter = l.scope().exporter().address();
                Map<Long, String> before = l.before().vrfNames();
                for (Map.Entry<Long, String> e : l.after().vrfNames().entrySet()) {
                    if (!e.getValue().equals(before.get(e.getKey()))) {
                        enrichment.learnVrf(exporter, e.getKey(), e.getValue());
                    }
                }
            }
        }
    }

    /** The VRF names of a live options data entry read back from the archive. */
    static void restored(ArchivedTemplate t, FlowEnrichment enrichment) {
        if (enrichment != null
                && t.templateId() == ArchivedTemplate.OPTIONS_DATA
                && t.end() == ArchivedTemplate.End.LIVE) {
            restoredState(t.exporterAddress(), t.wire(), enrichment);
        }
    }

    /**
     * The VRF names of options data held in decode's keyed state, told to the enrichment when the
     * operator starts.
     */
    static void restoredState(IpAddress exporter, byte[] wire, FlowEnrichment enrichment) {
        if (enrichment == null) {
            return;
        }
        OptionsData o = TemplateWire.decodeOptions(wire);
        for (Map.Entry<Long, String> e : o.vrfNames().entrySet()) {
            enrichment.learnVrf(exporter, e.getKey(), e.getValue());
        }
    }
}
