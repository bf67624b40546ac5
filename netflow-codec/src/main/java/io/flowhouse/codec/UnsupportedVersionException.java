// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

/** The version field is not 5, 9 or 10. */
public final class UnsupportedVersionException extends DecodeException {

    private static final long serialVersionUID = 1L;

    private final int version;

    public UnsupportedVersionException(int version) {
        super(
                DecodeProblem.Kind.UNSUPPORTED_VERSION,
                "unsupported version " + version + " (expected: 5, 9 or 10)");
        this.version = version;
    }

    public int version() {
        return version;
    }
}
