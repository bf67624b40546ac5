// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

/** Outcome of {@link TemplateCache#put}. */
public enum TemplateStatus {
    /** The key was not known. */
    NEW,
    /** The key was known with another layout; the new one replaced it. */
    REPLACED,
    /** The same layout again (the usual periodic refresh); lifetime renewed. */
    REFRESHED,
    /**
     * Not stored: the exporter or scope already holds the most templates or template bytes the
     * cache allows.
     */
    REJECTED_LIMIT,
    /** Not stored: the template has more fields than the cache allows for one template. */
    REJECTED_TOO_LARGE;

    /** True for the outcomes that stored nothing. */
    public boolean isRejected() {
        return this == REJECTED_LIMIT || this == REJECTED_TOO_LARGE;
    }
}
