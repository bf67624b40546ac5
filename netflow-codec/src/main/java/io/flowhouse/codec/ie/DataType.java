// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.ie;

import java.util.Locale;

/** Abstract data types of RFC 7012 section 3.1, with their natural (maximum) encoded length. */
public enum DataType {
    OCTET_ARRAY("octetArray", -1),
    UNSIGNED8("unsigned8", 1),
    UNSIGNED16("unsigned16", 2),
    UNSIGNED32("unsigned32", 4),
    UNSIGNED64("unsigned64", 8),
    SIGNED8("signed8", 1),
    SIGNED16("signed16", 2),
    SIGNED32("signed32", 4),
    SIGNED64("signed64", 8),
    FLOAT32("float32", 4),
    FLOAT64("float64", 8),
    BOOLEAN("boolean", 1),
    MAC_ADDRESS("macAddress", 6),
    STRING("string", -1),
    DATE_TIME_SECONDS("dateTimeSeconds", 4),
    DATE_TIME_MILLISECONDS("dateTimeMilliseconds", 8),
    DATE_TIME_MICROSECONDS("dateTimeMicroseconds", 8),
    DATE_TIME_NANOSECONDS("dateTimeNanoseconds", 8),
    IPV4_ADDRESS("ipv4Address", 4),
    IPV6_ADDRESS("ipv6Address", 16),
    BASIC_LIST("basicList", -1),
    SUB_TEMPLATE_LIST("subTemplateList", -1),
    SUB_TEMPLATE_MULTI_LIST("subTemplateMultiList", -1),
    UNKNOWN("", -1);

    private final String ianaName;
    private final int naturalLength;

    DataType(String ianaName, int naturalLength) {
        this.ianaName = ianaName;
        this.naturalLength = naturalLength;
    }

    /** The name used in the IANA registry, e.g. {@code unsigned64}. */
    public String ianaName() {
        return ianaName;
    }

    /** Encoded length, or -1 if the type has no fixed length. */
    public int naturalLength() {
        return naturalLength;
    }

    /** True for integer types, which RFC 7011 section 6.2 allows in reduced size. */
    public boolean isInteger() {
        return ordinal() >= UNSIGNED8.ordinal() && ordinal() <= SIGNED64.ordinal();
    }

    /** Looks up by IANA name, case-insensitively; {@link #UNKNOWN} if none. */
    public static DataType fromIana(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (DataType t : values()) {
            if (t != UNKNOWN && t.ianaName.toLowerCase(Locale.ROOT).equals(n)) {
                return t;
            }
        }
        return UNKNOWN;
    }
}
