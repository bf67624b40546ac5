// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import io.flowhouse.codec.ExporterKey;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A {@link TemplateCache} in memory, bounded by {@link TemplateLimits}: templates per exporter,
 * fields per template and template bytes per scope, so one exporter's template flood cannot exhaust
 * memory or evict another exporter's templates. Options data is bounded by the decoder's {@link
 * OptionsLimits}. Thread-safe.
 */
public final class InMemoryTemplateCache implements TemplateCache {

    /** Default cap on templates (data plus options) one exporter may hold across its scopes. */
    public static final int DEFAULT_MAX_TEMPLATES_PER_EXPORTER =
            TemplateLimits.DEFAULT_MAX_TEMPLATES_PER_EXPORTER;

    private final TemplateLimits limits;
    private final ConcurrentMap<TemplateKey, Template> templates = new ConcurrentHashMap<>();
    private final ConcurrentMap<ExporterKey, Integer> countByExporter = new ConcurrentHashMap<>();
    private final ConcurrentMap<TemplateScope, Long> bytesByScope = new ConcurrentHashMap<>();
    private final ConcurrentMap<TemplateScope, OptionsData> options = new ConcurrentHashMap<>();

    public InMemoryTemplateCache() {
        this(TemplateLimits.defaults());
    }

    /** Default limits, except at most {@code maxTemplatesPerExporter} templates per exporter. */
    public InMemoryTemplateCache(int maxTemplatesPerExporter) {
        this(TemplateLimits.defaults().withMaxTemplatesPerExporter(maxTemplatesPerExporter));
    }

    public InMemoryTemplateCache(TemplateLimits limits) {
        this.limits = limits;
    }

    @Override
    public Optional<Template> find(TemplateKey key) {
        return Optional.ofNullable(templates.get(key));
    }

    @Override
    public TemplateStatus put(TemplateKey key, Template template) {
        if (templates.get(key) == template) {
            return TemplateStatus.REFRESHED; // the cached instance resent: nothing to change
        }
        return putLocked(key, template);
    }

    private synchronized TemplateStatus putLocked(TemplateKey key, Template template) {
        Template old = templates.get(key);
        if (old != null && old.equals(template)) {
            return TemplateStatus.REFRESHED;
        }
        TemplateScope scope = key.scope();
        long scopeBytes = bytesByScope.getOrDefault(scope, 0L);
        long replaced = old == null ? 0 : TemplateWire.encodedSize(old);
        TemplateStatus refused = limits.check(template, scopeBytes, replaced);
        if (refused != null) {
            return refused;
        }
        ExporterKey exporter = scope.exporter();
        int n = countByExporter.getOrDefault(exporter, 0);
        if (old == null && n >= limits.maxTemplatesPerExporter()) {
            return TemplateStatus.REJECTED_LIMIT;
        }
        templates.put(key, template);
        bytesByScope.put(scope, scopeBytes - replaced + TemplateWire.encodedSize(template));
        if (old != null) {
            return TemplateStatus.REPLACED;
        }
        countByExporter.put(exporter, n + 1);
        return TemplateStatus.NEW;
    }

    @Override
    public synchronized boolean remove(TemplateKey key) {
        Template old = templates.remove(key);
        if (old == null) {
            return false;
        }
        countByExporter.computeIfPresent(key.scope().exporter(), (k, n) -> n <= 1 ? null : n - 1);
        release(key.scope(), TemplateWire.encodedSize(old));
        return true;
    }

    @Override
    public synchronized int removeAll(TemplateScope scope, boolean optionsTemplates) {
        int removed = 0;
        long bytes = 0;
        for (var it = templates.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (e.getKey().scope().equals(scope) && e.getValue().isOptions() == optionsTemplates) {
                it.remove();
                removed++;
                bytes += TemplateWire.encodedSize(e.getValue());
            }
        }
        final int r = removed;
        countByExporter.computeIfPresent(scope.exporter(), (k, n) -> n <= r ? null : n - r);
        release(scope, bytes);
        return removed;
    }

    private void release(TemplateScope scope, long bytes) {
        bytesByScope.computeIfPresent(scope, (k, b) -> b <= bytes ? null : b - bytes);
    }

    @Override
    public synchronized void evictScope(TemplateScope scope) {
        removeAll(scope, false);
        removeAll(scope, true);
        options.remove(scope);
    }

    @Override
    public OptionsData options(TemplateScope scope) {
        return options.getOrDefault(scope, OptionsData.EMPTY);
    }

    @Override
    public void putOptions(TemplateScope scope, OptionsData data) {
        options.put(scope, data);
    }

    /** Templates held for one exporter. */
    public int templateCount(ExporterKey exporter) {
        return countByExporter.getOrDefault(exporter, 0);
    }

    /** Template bytes ({@link TemplateWire} form) held for one scope. */
    public long templateBytes(TemplateScope scope) {
        return bytesByScope.getOrDefault(scope, 0L);
    }

    /** Templates held in total. */
    public int size() {
        return templates.size();
    }
}
