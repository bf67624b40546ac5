// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import java.util.Locale;

/**
 * What identifies one exporter's template space. The observation domain (IPFIX) or source id (v9)
 * is always part of the scope; this decides whether the UDP source port is too.
 */
public enum TemplateScopeMode {
    /** RFC 7011 §8.4: a UDP transport session is (address, port); the default. */
    ADDRESS_AND_PORT,
    /** For exporters that send from changing source ports (several line cards, NAT). */
    ADDRESS_ONLY;

    public static TemplateScopeMode parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "address-and-port" -> ADDRESS_AND_PORT;
            case "address-only" -> ADDRESS_ONLY;
            default ->
                    throw new IllegalArgumentException(
                            "unknown template scope "
                                    + text
                                    + " (expected: address-and-port or address-only)");
        };
    }
}
