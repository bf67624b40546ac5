// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.util.Optional;

/**
 * Templates and options data by scope, owned by the caller (GoFlow2: the decoder "is not aware of
 * the router"). In Flink, implement it over keyed {@code MapState}; elsewhere use {@link
 * InMemoryTemplateCache}, wrapped by {@link ExpiringTemplateCache} for RFC 7011 section 8
 * lifetimes. Implementations need not be thread-safe unless they say so.
 */
public interface TemplateCache {

    /** The template for a key, if known (and not expired). */
    Optional<Template> find(TemplateKey key);

    /** Stores or refreshes a template. */
    TemplateStatus put(TemplateKey key, Template template);

    /** Withdraws one template; true if it was known. */
    boolean remove(TemplateKey key);

    /**
     * Withdraws every template of a scope (IPFIX "withdraw all", RFC 7011 section 8.1).
     *
     * @param options true to withdraw options templates, false for data templates
     * @return how many were removed
     */
    int removeAll(TemplateScope scope, boolean options);

    /** Forgets a scope entirely: templates and options data (e.g. exporter restarted). */
    void evictScope(TemplateScope scope);

    /** Options data for a scope; {@link OptionsData#EMPTY} if none. */
    OptionsData options(TemplateScope scope);

    /** Replaces the options data of a scope. */
    void putOptions(TemplateScope scope, OptionsData data);
}
