// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.rules;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One interface rule of an exporter entry. It applies to an interface when its {@code ifIndex}
 * matches (or it names none) and its {@code descriptionMatch} finds a match in the interface's
 * description (or it has none). Each field it sets replaces what earlier rules and the sources
 * said; {@code provider} and {@code connectivity} may use the match's groups ({@code $1}, {@code
 * ${name}}).
 *
 * @param ifIndex the interface, or -1 for any
 * @param descriptionMatch a regular expression searched in the description, or null
 * @param name a name override, or null
 * @param description a description override, or null
 * @param speedMbps a speed override, or -1
 * @param boundary a classification, or null
 * @param provider a template, or null
 * @param connectivity a template, or null
 */
public record InterfaceRule(
        long ifIndex,
        Pattern descriptionMatch,
        String name,
        String description,
        long speedMbps,
        Boundary boundary,
        String provider,
        String connectivity) {

    /** {@code context} with this rule applied, or {@code context} itself when it does not apply. */
    InterfaceContext apply(long index, InterfaceContext context) {
        if (ifIndex >= 0 && ifIndex != index) {
            return context;
        }
        Matcher m = null;
        if (descriptionMatch != null) {
            m = descriptionMatch.matcher(context.description());
            if (!m.find()) {
                return context;
            }
        }
        return new InterfaceContext(
                name != null ? name : context.name(),
                description != null ? description : context.description(),
                speedMbps >= 0 ? speedMbps : context.speedMbps(),
                boundary != null ? boundary : context.boundary(),
                provider != null ? expand(provider, m) : context.provider(),
                connectivity != null ? expand(connectivity, m) : context.connectivity());
    }

    /** {@code $n} and {@code ${name}} replaced by the match's groups; "" for a missing group. */
    static String expand(String template, Matcher m) {
        if (m == null || template.indexOf('$') < 0) {
            return template;
        }
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '$' && i + 1 < template.length()) {
                char n = template.charAt(i + 1);
                if (Character.isDigit(n)) {
                    int g = n - '0';
                    out.append(g <= m.groupCount() && m.group(g) != null ? m.group(g) : "");
                    i += 2;
                    continue;
                }
                int close = template.indexOf('}', i);
                if (n == '{' && close > 0) {
                    String group = template.substring(i + 2, close);
                    String v;
                    try {
                        v = m.group(group);
                    } catch (IllegalArgumentException e) {
                        v = null;
                    }
                    out.append(v == null ? "" : v);
                    i = close + 1;
                    continue;
                }
            }
            out.append(c);
            i++;
        }
        return out.toString();
    }
}
