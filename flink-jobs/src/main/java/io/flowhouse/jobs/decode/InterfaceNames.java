// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.TemplateWire;
import io.flowhouse.jobs.enrich.FlowEnrichment;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.OptionsInterfaceName;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.streaming.api.functions.co.KeyedCoProcessFunction;

/**
 * Tells decode's enrichment ({@link FlowEnrichment}, when on) and the side output {@link
 * DecodeOutputs#INTERFACE_NAMES} the interface names and descriptions of options data that changed:
 * only when a scope's options data is learned, changed or restored, never per flow. A change tells
 * only the names it added or changed (a scope of 4,096 names that renames one tells one, not
 * 4,096); a restore from the archive or from decode's own state tells the scope's names once, at
 * most the options data's own bound.
 */
final class InterfaceNames {

    private InterfaceNames() {}

    /** The names of every options data the last decode taught. */
    static void learned(
            KeyedCoProcessFunction<?, ?, ?, ?>.Context ctx,
            List<StateBackedTemplateCache.Learned> learned,
            FlowEnrichment enrichment) {
        for (StateBackedTemplateCache.Learned l : learned) {
            if (l.options()) {
                IpAddress exporter = l.scope().exporter().address();
                for (OptionsInterfaceName n : changed(exporter, l.before(), l.after())) {
                    tell(ctx, enrichment, n);
                }
            }
        }
    }

    private static void tell(
            KeyedCoProcessFunction<?, ?, ?, ?>.Context ctx,
            FlowEnrichment enrichment,
            OptionsInterfaceName n) {
        if (ctx != null) {
            ctx.output(DecodeOutputs.INTERFACE_NAMES, n);
        }
        if (enrichment != null) {
            enrichment.learn(n.exporter(), n.ifIndex(), n.name(), n.description());
        }
    }

    /**
     * The interfaces whose name or description {@code after} adds to {@code before} or changes, by
     * ifIndex, each with both (the enrich stage keeps the last of an ifIndex).
     */
    static List<OptionsInterfaceName> changed(
            IpAddress exporter, OptionsData before, OptionsData after) {
        Set<Long> ifIndexes = new TreeSet<>(after.interfaceNames().keySet());
        ifIndexes.addAll(after.interfaceDescriptions().keySet());
        List<OptionsInterfaceName> changed = new ArrayList<>();
        for (long ifIndex : ifIndexes) {
            String name = after.interfaceNames().getOrDefault(ifIndex, "");
            String description = after.interfaceDescriptions().getOrDefault(ifIndex, "");
            if (!name.equals(before.interfaceNames().getOrDefault(ifIndex, ""))
                    || !description.equals(
                            before.interfaceDescriptions().getOrDefault(ifIndex, ""))) {
                changed.add(new OptionsInterfaceName(exporter, ifIndex, name, description));
            }
        }
        return changed;
    }

    /** The names of a live options data entry read back from the archive. */
    static void restored(
            KeyedCoProcessFunction<?, ?, ?, ?>.Context ctx,
            ArchivedTemplate t,
            FlowEnrichment enrichment) {
        if (t.templateId() == ArchivedTemplate.OPTIONS_DATA
                && t.end() == ArchivedTemplate.End.LIVE) {
            tell(ctx, enrichment, t.exporterAddress(), t.wire());
        }
    }

    /**
     * The names of options data held in decode's keyed state, told to the enrichment when the
     * operator starts (after a restore: the names of the keys this instance now owns).
     */
    static void restoredState(IpAddress exporter, byte[] wire, FlowEnrichment enrichment) {
        tell(null, enrichment, exporter, wire);
    }

    private static void tell(
            KeyedCoProcessFunction<?, ?, ?, ?>.Context ctx,
            FlowEnrichment enrichment,
            IpAddress exporter,
            byte[] wire) {
        OptionsData o = TemplateWire.decodeOptions(wire);
        // Name and description of an ifIndex travel together: the enrichment keeps the last.
        Set<Long> ifIndexes = new TreeSet<>(o.interfaceNames().keySet());
        ifIndexes.addAll(o.interfaceDescriptions().keySet());
        for (long ifIndex : ifIndexes) {
            tell(
                    ctx,
                    enrichment,
                    new OptionsInterfaceName(
                            exporter,
                            ifIndex,
                            o.interfaceNames().getOrDefault(ifIndex, ""),
                            o.interfaceDescriptions().getOrDefault(ifIndex, "")));
        }
    }
}
