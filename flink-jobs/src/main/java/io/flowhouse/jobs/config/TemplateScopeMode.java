// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.codec.ExporterKey;
import java.util.Locale;

/**
 * What identifies one exporter's template space. The observation domain (IPFIX) or source id (v9)
 * is always part of the scope; this decides whether the UDP source port is too. The rule is applied
 * where templates are stored and looked up: the decode step keeps templates in keyed state under
 * the {@link #owner} of a datagram's exporter, while the exporter itself (address and port) is what
 * the codec, the records and the statistics see.
 */
public enum TemplateScopeMode {
    /** RFC 7011 §8.4: a UDP transport session is (address, port); the default. */
    ADDRESS_AND_PORT,
    /** For exporters that send from changing source ports (several line cards, NAT). */
    ADDRESS_ONLY;

    /**
     * The exporter whose template space {@code exporter}'s datagrams use, the key of the decode
     * step: itself, or with {@link #ADDRESS_ONLY} its address with port 0 (every port).
     */
    public ExporterKey owner(ExporterKey exporter) {
        return this == ADDRESS_ONLY && exporter.port() != 0
                ? new ExporterKey(exporter.address(), 0)
                : exporter;
    }

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
