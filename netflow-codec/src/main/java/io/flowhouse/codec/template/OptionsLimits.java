// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.io.Serializable;

/**
 * Bounds on the options data one {@link TemplateScope} may hold, so options records (interface
 * names of up to 65 KB each, thousands per scope) cannot grow state, the template archive or the
 * work of each datagram without limit. What a bound refuses is counted by the decoder as a problem
 * ({@code OPTION_TRUNCATED}, {@code OPTIONS_LIMIT}); the caller turns the counts into metrics.
 *
 * @param maxStringBytes longest string value kept (interface names and descriptions, sampler
 *     names), in UTF-8 bytes; longer values are cut at a character boundary and counted as {@code
 *     OPTION_TRUNCATED}
 * @param maxEntriesPerScope most entries per map of one scope (sampling rates by sampler id,
 *     interface names by ifIndex); a record adding one more is refused ({@code OPTIONS_LIMIT})
 * @param maxBytesPerScope most bytes one scope's options data takes in {@link TemplateWire} form
 *     (what state and the template archive store); a record that would grow it beyond is refused
 *     ({@code OPTIONS_LIMIT})
 */
public record OptionsLimits(int maxStringBytes, int maxEntriesPerScope, int maxBytesPerScope)
        implements Serializable {

    /** IF-MIB's {@code ifName} and {@code ifDescr} are DisplayStrings of at most 255 octets. */
    public static final int DEFAULT_MAX_STRING_BYTES = 255;

    /** As before these limits existed: 4,096 interfaces or samplers per scope. */
    public static final int DEFAULT_MAX_ENTRIES_PER_SCOPE = OptionsData.MAX_ENTRIES;

    /**
     * 128 KiB: about 4,000 interfaces with 20-byte names, and far below Kafka's 1 MiB record limit
     * for the archived copy.
     */
    public static final int DEFAULT_MAX_BYTES_PER_SCOPE = 128 * 1024;

    private static final OptionsLimits DEFAULTS =
            new OptionsLimits(
                    DEFAULT_MAX_STRING_BYTES,
                    DEFAULT_MAX_ENTRIES_PER_SCOPE,
                    DEFAULT_MAX_BYTES_PER_SCOPE);

    public OptionsLimits {
        if (maxStringBytes < 0 || maxStringBytes > 0xffff) {
            throw new IllegalArgumentException(
                    "maxStringBytes " + maxStringBytes + " (expected: 0..65535)");
        }
        if (maxEntriesPerScope < 0) {
            throw new IllegalArgumentException(
                    "maxEntriesPerScope " + maxEntriesPerScope + " (expected: >= 0)");
        }
        if (maxBytesPerScope < TemplateWire.encodedSize(OptionsData.EMPTY)) {
            throw new IllegalArgumentException(
                    "maxBytesPerScope "
                            + maxBytesPerScope
                            + " (expected: >= "
                            + TemplateWire.encodedSize(OptionsData.EMPTY)
                            + ")");
        }
    }

    public static OptionsLimits defaults() {
        return DEFAULTS;
    }
}
