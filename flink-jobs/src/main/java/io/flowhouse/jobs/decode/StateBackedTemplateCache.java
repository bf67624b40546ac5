// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.template.TemplateCache;
import io.flowhouse.codec.template.TemplateKey;
import io.flowhouse.codec.template.TemplateScope;
import io.flowhouse.codec.template.TemplateStatus;
import io.flowhouse.codec.template.TemplateWire;
import io.flowhouse.jobs.model.ScopeKey;
import io.flowhouse.jobs.model.StoredTemplate;
import io.flowhouse.jobs.model.TemplateStateKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.state.MapState;

/**
 * The codec's {@link TemplateCache} over Flink keyed state: templates in a {@code
 * MapState<TemplateStateKey, StoredTemplate>} and options data in a {@code MapState<ScopeKey,
 * byte[]>}, both in {@link TemplateWire} form, under the current key. This is where the template
 * scope rule applies: the key is the exporter that owns the template space ({@code
 * TemplateScopeMode#owner}), so a {@link TemplateScope} is stored by version and observation domain
 * only, and one exporter's observation domains stay apart.
 *
 * <p>Before each decode the caller {@link #bind binds} the datagram's receive time. In {@link
 * #bindReadOnly read-only} mode (re-decoding a held datagram) what the datagram teaches goes to a
 * private overlay and never into state, so an old datagram cannot roll a template back.
 *
 * <p>Not thread-safe; one instance per function instance, used from the task thread only.
 */
public final class StateBackedTemplateCache implements TemplateCache {

    /** Templates one exporter may hold; more are refused, against template floods. */
    public static final int MAX_TEMPLATES_PER_EXPORTER = 4096;

    private static final int PARSED_CACHE_LIMIT = 8192;

    /** A template or options data that this datagram taught (new or changed), for the archive. */
    public record Learned(TemplateScope scope, int templateId, byte[] wire, boolean options) {}

    private final MapState<TemplateStateKey, StoredTemplate> templates;
    private final MapState<ScopeKey, byte[]> options;

    /** Parsed templates by wire bytes: parsing is skipped when the stored bytes are the same. */
    private final Map<ParsedKey, ParsedTemplate> parsed = new HashMap<>();

    private final List<Learned> learned = new ArrayList<>();
    private final Map<TemplateStateKey, StoredTemplate> overlay = new HashMap<>();
    private final Map<ScopeKey, OptionsData> optionsOverlay = new HashMap<>();
    private boolean readOnly;
    private long receivedMillis;
    private ExporterKey owner;

    private record ParsedKey(ExporterKey owner, TemplateStateKey key) {}

    private record ParsedTemplate(byte[] wire, Template template) {}

    public StateBackedTemplateCache(
            MapState<TemplateStateKey, StoredTemplate> templates,
            MapState<ScopeKey, byte[]> options) {
        this.templates = templates;
        this.options = options;
    }

    /**
     * Prepares for decoding one datagram of the current key ({@code owner}), received at {@code
     * receivedMillis}.
     */
    public void bind(ExporterKey owner, long receivedMillis) {
        this.owner = owner;
        this.receivedMillis = receivedMillis;
        this.readOnly = false;
        learned.clear();
        overlay.clear();
        optionsOverlay.clear();
    }

    /** Prepares for re-decoding a held datagram without changing state. */
    public void bindReadOnly(ExporterKey owner, long receivedMillis) {
        bind(owner, receivedMillis);
        this.readOnly = true;
    }

    /** What the last decode taught: new or changed templates and options data. */
    public List<Learned> learned() {
        return learned;
    }

    static TemplateStateKey templateKey(TemplateKey key) {
        return new TemplateStateKey(
                key.scope().version(), key.scope().observationDomainId(), key.templateId());
    }

    static ScopeKey scopeKey(TemplateScope scope) {
        return new ScopeKey(scope.version(), scope.observationDomainId());
    }

    @Override
    public Optional<Template> find(TemplateKey key) {
        TemplateStateKey k = templateKey(key);
        StoredTemplate s = overlay.get(k);
        if (s == null) {
            s = get(k);
        }
        if (s == null || (s.archived() && receivedMillis < s.validFromMillis())) {
            return Optional.empty();
        }
        return Optional.of(parse(k, s.wire()));
    }

    private Template parse(TemplateStateKey k, byte[] wire) {
        ParsedKey pk = new ParsedKey(owner, k);
        ParsedTemplate p = parsed.get(pk);
        if (p != null && (p.wire == wire || Arrays.equals(p.wire, wire))) {
            return p.template;
        }
        Template t = TemplateWire.decodeTemplate(wire);
        if (parsed.size() >= PARSED_CACHE_LIMIT) {
            parsed.clear();
        }
        parsed.put(pk, new ParsedTemplate(wire, t));
        return t;
    }

    @Override
    public TemplateStatus put(TemplateKey key, Template template) {
        TemplateStateKey k = templateKey(key);
        byte[] wire = TemplateWire.encode(template);
        StoredTemplate old = overlay.get(k);
        if (old == null) {
            old = get(k);
        }
        TemplateStatus status;
        if (old == null) {
            if (!readOnly && countTemplates() >= MAX_TEMPLATES_PER_EXPORTER) {
                return TemplateStatus.REJECTED_LIMIT;
            }
            status = TemplateStatus.NEW;
        } else if (Arrays.equals(old.wire(), wire)) {
            status = TemplateStatus.REFRESHED;
            if (!old.archived()) {
                return status;
            }
        } else {
            status = TemplateStatus.REPLACED;
        }
        long validFrom =
                status == TemplateStatus.REFRESHED
                        ? Math.min(old.validFromMillis(), receivedMillis)
                        : receivedMillis;
        StoredTemplate s = new StoredTemplate(wire, validFrom, false);
        if (readOnly) {
            overlay.put(k, s);
        } else {
            set(k, s);
            if (status != TemplateStatus.REFRESHED) {
                learned.add(new Learned(key.scope(), key.templateId(), wire, false));
            }
        }
        return status;
    }

    /**
     * Installs a template from the templates topic unless the stream already taught this key a
     * layout (stream templates always win: they are what the exporter says now).
     *
     * @return true if state changed
     */
    public boolean restore(TemplateStateKey k, byte[] wire, long learnedMillis) {
        StoredTemplate old = get(k);
        if (old != null && (!old.archived() || old.validFromMillis() >= learnedMillis)) {
            return false;
        }
        set(k, new StoredTemplate(wire, learnedMillis, true));
        return true;
    }

    /** Installs options data from the templates topic when the scope has none yet. */
    public boolean restoreOptions(ScopeKey k, byte[] wire) {
        try {
            if (options.contains(k)) {
                return false;
            }
            options.put(k, wire);
        } catch (Exception e) {
            throw new IllegalStateException("options state of " + k, e);
        }
        return true;
    }

    @Override
    public boolean remove(TemplateKey key) {
        TemplateStateKey k = templateKey(key);
        if (readOnly) {
            return overlay.remove(k) != null;
        }
        boolean known = get(k) != null;
        if (known) {
            try {
                templates.remove(k);
            } catch (Exception e) {
                throw new IllegalStateException("template state of " + k, e);
            }
        }
        return known;
    }

    @Override
    public int removeAll(TemplateScope scope, boolean optionsTemplates) {
        if (readOnly) {
            return 0;
        }
        ScopeKey sk = scopeKey(scope);
        int n = 0;
        try {
            Iterator<Map.Entry<TemplateStateKey, StoredTemplate>> it = templates.iterator();
            while (it.hasNext()) {
                Map.Entry<TemplateStateKey, StoredTemplate> e = it.next();
                if (e.getKey().in(sk)
                        && TemplateWire.decodeTemplate(e.getValue().wire()).isOptions()
                                == optionsTemplates) {
                    it.remove();
                    n++;
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("template state of scope " + sk, e);
        }
        return n;
    }

    @Override
    public void evictScope(TemplateScope scope) {
        if (readOnly) {
            return;
        }
        ScopeKey sk = scopeKey(scope);
        try {
            Iterator<Map.Entry<TemplateStateKey, StoredTemplate>> it = templates.iterator();
            while (it.hasNext()) {
                if (it.next().getKey().in(sk)) {
                    it.remove();
                }
            }
            options.remove(sk);
        } catch (Exception e) {
            throw new IllegalStateException("template state of scope " + sk, e);
        }
    }

    @Override
    public OptionsData options(TemplateScope scope) {
        ScopeKey k = scopeKey(scope);
        OptionsData o = optionsOverlay.get(k);
        if (o != null) {
            return o;
        }
        try {
            byte[] wire = options.get(k);
            return wire == null ? OptionsData.EMPTY : TemplateWire.decodeOptions(wire);
        } catch (Exception e) {
            throw new IllegalStateException("options state of " + k, e);
        }
    }

    @Override
    public void putOptions(TemplateScope scope, OptionsData data) {
        ScopeKey k = scopeKey(scope);
        if (readOnly) {
            optionsOverlay.put(k, data);
            return;
        }
        byte[] wire = TemplateWire.encode(data);
        try {
            byte[] old = options.get(k);
            if (old != null && Arrays.equals(old, wire)) {
                return;
            }
            options.put(k, wire);
        } catch (Exception e) {
            throw new IllegalStateException("options state of " + k, e);
        }
        learned.add(new Learned(scope, -1, wire, true));
    }

    private int countTemplates() {
        int n = 0;
        try {
            for (TemplateStateKey ignored : templates.keys()) {
                n++;
            }
        } catch (Exception e) {
            throw new IllegalStateException("template state", e);
        }
        return n;
    }

    private StoredTemplate get(TemplateStateKey k) {
        try {
            return templates.get(k);
        } catch (Exception e) {
            throw new IllegalStateException("template state of " + k, e);
        }
    }

    private void set(TemplateStateKey k, StoredTemplate s) {
        try {
            templates.put(k, s);
        } catch (Exception e) {
            throw new IllegalStateException("template state of " + k, e);
        }
    }
}
