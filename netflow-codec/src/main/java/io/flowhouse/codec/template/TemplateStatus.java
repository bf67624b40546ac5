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
    /** Not stored: the exporter already holds the maximum number of templates. */
    REJECTED_LIMIT
}
