// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

import java.util.List;

/**
 * What the rules say about the exporters of one network: their attributes and interface rules,
 * already merged with every less specific entry's (its rules first, so these win).
 */
public record ExporterEntry(Attributes attributes, List<InterfaceRule> interfaces) {

    public ExporterEntry {
        interfaces = List.copyOf(interfaces);
    }

    /** This entry over a less specific one. */
    ExporterEntry over(ExporterEntry wider) {
        List<InterfaceRule> rules =
                new java.util.ArrayList<>(wider.interfaces.size() + interfaces.size());
        rules.addAll(wider.interfaces);
        rules.addAll(interfaces);
        return new ExporterEntry(attributes.over(wider.attributes), rules);
    }

    /** The interface as the sources gave it, with these rules applied in order. */
    public InterfaceContext classify(long ifIndex, InterfaceContext fromSources) {
        InterfaceContext c = fromSources;
        for (InterfaceRule r : interfaces) {
            c = r.apply(ifIndex, c);
        }
        return c;
    }
}
