// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.template;

import java.time.Duration;
import java.time.InstantSource;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Wraps a cache with RFC 7011 section 8.4 template lifetimes (UDP): a template not refreshed within
 * its lifetime is gone, so data that still uses it is reported as {@code TEMPLATE_MISSING} instead
 * of being decoded with a stale layout. The clock is injected (the codec reads none). Bounds
 * ({@link TemplateLimits}: templates, fields, bytes) are the delegate's: a lifetime is kept only
 * for a template the delegate stored, so this wrapper holds no more entries than its delegate.
 */
public final class ExpiringTemplateCache implements TemplateCache {

    /** A common collector default for the template lifetime (nfdump, pmacct use 30 min). */
    public static final Duration DEFAULT_LIFETIME = Duration.ofMinutes(30);

    private final TemplateCache delegate;
    private final InstantSource clock;
    private final long lifetimeMillis;
    private final ConcurrentMap<TemplateKey, Long> refreshedAt = new ConcurrentHashMap<>();

    public ExpiringTemplateCache(TemplateCache delegate, InstantSource clock, Duration lifetime) {
        if (lifetime.isNegative() || lifetime.isZero()) {
            throw new IllegalArgumentException("lifetime " + lifetime + " (expected: > 0)");
        }
        this.delegate = delegate;
        this.clock = clock;
        this.lifetimeMillis = lifetime.toMillis();
    }

    @Override
    public Optional<Template> find(TemplateKey key) {
        Long at = refreshedAt.get(key);
        if (at != null && clock.millis() - at > lifetimeMillis) {
            refreshedAt.remove(key);
            delegate.remove(key);
            return Optional.empty();
        }
        return delegate.find(key);
    }

    @Override
    public TemplateStatus put(TemplateKey key, Template template) {
        TemplateStatus s = delegate.put(key, template);
        if (!s.isRejected()) {
            refreshedAt.put(key, clock.millis());
        }
        return s;
    }

    @Override
    public boolean remove(TemplateKey key) {
        refreshedAt.remove(key);
        return delegate.remove(key);
    }

    @Override
    public int removeAll(TemplateScope scope, boolean options) {
        int n = delegate.removeAll(scope, options);
        refreshedAt.keySet().removeIf(k -> k.scope().equals(scope) && delegate.find(k).isEmpty());
        return n;
    }

    @Override
    public void evictScope(TemplateScope scope) {
        delegate.evictScope(scope);
        refreshedAt.keySet().removeIf(k -> k.scope().equals(scope));
    }

    @Override
    public OptionsData options(TemplateScope scope) {
        return delegate.options(scope);
    }

    @Override
    public void putOptions(TemplateScope scope, OptionsData data) {
        delegate.putOptions(scope, data);
    }

    /** Removes every expired template now; returns how many. */
    public int expire() {
        long now = clock.millis();
        int n = 0;
        for (var e : refreshedAt.entrySet()) {
            if (now - e.getValue() > lifetimeMillis
                    && refreshedAt.remove(e.getKey(), e.getValue())) {
                delegate.remove(e.getKey());
                n++;
            }
        }
        return n;
    }
}
