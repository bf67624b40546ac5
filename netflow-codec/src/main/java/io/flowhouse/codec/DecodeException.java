// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

/**
 * The datagram cannot be decoded at all (bad header, unknown version). Problems inside a datagram
 * that leave the rest usable are {@link DecodeProblem}s instead. Only subtypes of this escape the
 * codec.
 */
public class DecodeException extends Exception {

    private static final long serialVersionUID = 1L;

    private final DecodeProblem.Kind kind;

    public DecodeException(DecodeProblem.Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    /** The named problem, so callers count exceptions and problems alike. */
    public DecodeProblem.Kind kind() {
        return kind;
    }
}
