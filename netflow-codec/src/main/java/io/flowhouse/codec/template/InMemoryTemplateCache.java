// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import io.flowhouse.codec.ExporterKey;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * A {@link TemplateCache} in memory, with a cap on templates per exporter so one exporter's
 * template flood cannot exhaust memory or evict another exporter's templates. Thread-safe.
 */
public final class InMemoryTemplateCache implements TemplateCache {

    /**
     * Default cap on templates (data plus options) one exporter may hold across its scopes. Real
     * exporters use a few dozen; 65,536 would be every id of one domain, about 20 MB at worst.
     */
    public static final int DEFAULT_MAX_TEMPLATES_PER_EXPORTER = 4096;

    private final int maxTemplatesPerExporter;
    private final ConcurrentMap<TemplateKey, Template> templates = new ConcurrentHashMap<>();
    private final ConcurrentMap<ExporterKey, Integer> countByExporter = new ConcurrentHashMap<>();
    private final ConcurrentMap<TemplateScope, OptionsData> options = new ConcurrentHashMap<>();

    public InMemoryTemplateCache() {
        this(DEFAULT_MAX_TEMPLATES_PER_EXPORTER);
    }

    public InMemoryTemplateCache(int maxTemplatesPerExporter) {
        if (maxTemplatesPerExporter < 1) {
            throw new IllegalArgumentException(
                    "maxTemplatesPerExporter " + maxTemplatesPerExporter + " (expected: >= 1)");
        }
        this.maxTemplatesPerExporter = maxTemplatesPerExporter;
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
        if (old == null) {
            ExporterKey exporter = key.scope().exporter();
            int n = countByExporter.getOrDefault(exporter, 0);
            if (n >= maxTemplatesPerExporter) {
                return TemplateStatus.REJECTED_LIMIT;
            }
            templates.put(key, template);
            countByExporter.put(exporter, n + 1);
            return TemplateStatus.NEW;
        }
        if (old.equals(template)) {
            return TemplateStatus.REFRESHED;
        }
        templates.put(key, template);
        return TemplateStatus.REPLACED;
    }

    @Override
    public synchronized boolean remove(TemplateKey key) {
        if (templates.remove(key) == null) {
            return false;
        }
        countByExporter.computeIfPresent(key.scope().exporter(), (k, n) -> n <= 1 ? null : n - 1);
        return true;
    }

    @Override
    public synchronized int removeAll(TemplateScope scope, boolean optionsTemplates) {
        int removed = 0;
        for (var it = templates.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (e.getKey().scope().equals(scope) && e.getValue().isOptions() == optionsTemplates) {
                it.remove();
                removed++;
            }
        }
        final int r = removed;
        countByExporter.computeIfPresent(scope.exporter(), (k, n) -> n <= r ? null : n - r);
        return removed;
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

    /** Templates held in total. */
    public int size() {
        return templates.size();
    }
}
