// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

/**
 * One field of a template record (RFC 7011 section 3.2; RFC 3954 section 5.2).
 *
 * @param id information element id (15 bits in IPFIX; 16 in v9), without the enterprise bit
 * @param length field length in bytes (uint16); {@link #VARIABLE_LENGTH} for variable length
 * @param enterpriseNumber private enterprise number (uint32), 0 for IANA elements
 */
public record FieldSpecifier(int id, int length, long enterpriseNumber) {

    /** Length value that marks a variable-length field (RFC 7011 section 7). */
    public static final int VARIABLE_LENGTH = 0xffff;

    /** PEN of RFC 5103 reverse information elements. */
    public static final long REVERSE_PEN = 29305L;

    public FieldSpecifier {
        if (id < 0 || id > 0xffff) {
            throw new IllegalArgumentException("id " + id + " (expected: 0..65535)");
        }
        if (length < 0 || length > 0xffff) {
            throw new IllegalArgumentException("length " + length + " (expected: 0..65535)");
        }
        if (enterpriseNumber < 0 || enterpriseNumber > 0xffff_ffffL) {
            throw new IllegalArgumentException("enterprise number " + enterpriseNumber);
        }
    }

    /** An IANA field. */
    public static FieldSpecifier of(int id, int length) {
        return new FieldSpecifier(id, length, 0L);
    }

    public boolean isVariableLength() {
        return length == VARIABLE_LENGTH;
    }

    public boolean isEnterprise() {
        return enterpriseNumber != 0L;
    }
}
