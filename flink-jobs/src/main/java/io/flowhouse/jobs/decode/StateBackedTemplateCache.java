// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.template.OptionsData;
import io.flowhouse.codec.template.Template;
import io.flowhouse.codec.template.TemplateCache;
import io.flowhouse.codec.template.TemplateKey;
import io.flowhouse.codec.template.TemplateLimits;
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

    private static final int PARSED_CACHE_LIMIT = 8192;

    /**
     * Decoded templates kept per function instance, in fields (a template may have thousands): 1 M
     * fields is some 40 MB of heap at most.
     */
    private static final int DECODED_CACHE_MAX_FIELDS = 1 << 20;

    /** Decoded options data kept per function instance, in stored bytes. */
    private static final int DECODED_OPTIONS_MAX_BYTES = 16 << 20;

    /** A template or options data that this datagram taught (new or changed), for the archive. */
    public record Learned(TemplateScope scope, int templateId, byte[] wire, boolean options) {}

    private final MapState<TemplateStateKey, StoredTemplate> templates;
    private final MapState<ScopeKey, byte[]> options;
    private final TemplateLimits limits;

    /** Parsed templates by wire bytes: parsing is skipped when the stored bytes are the same. */
    private final Map<ParsedKey, ParsedTemplate> parsed = new HashMap<>();

    private int parsedFields;

    /**
     * Decoded options data by stored bytes: the options of a scope are decoded once, not for every
     * datagram of the scope (their encoding is canonical, so equal bytes are equal data).
     */
    private final Map<OwnedScope, DecodedOptions> decodedOptions = new HashMap<>();

    private long decodedOptionsBytes;

    private final List<Learned> learned = new ArrayList<>();
    private final Map<TemplateStateKey, StoredTemplate> overlay = new HashMap<>();
    private final Map<ScopeKey, OptionsData> optionsOverlay = new HashMap<>();
    private boolean readOnly;
    private long receivedMillis;
    private ExporterKey owner;

    private record ParsedKey(ExporterKey owner, TemplateStateKey key) {}

    private record OwnedScope(ExporterKey owner, ScopeKey scope) {}

    private record ParsedTemplate(byte[] wire, Template template) {}

    private record DecodedOptions(byte[] wire, OptionsData data) {}

    /**
     * @param limits templates per exporter (this cache holds one exporter key), fields per template
     *     and template bytes per scope; what they refuse is counted by the decoder ({@code
     *     TEMPLATE_FLOOD}, {@code TEMPLATE_TOO_LARGE})
     */
    public StateBackedTemplateCache(
            MapState<TemplateStateKey, StoredTemplate> templates,
            MapState<ScopeKey, byte[]> options,
            TemplateLimits limits) {
        this.templates = templates;
        this.options = options;
        this.limits = limits;
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
        if (parsed.size() >= PARSED_CACHE_LIMIT
                || parsedFields + t.fields().size() > DECODED_CACHE_MAX_FIELDS) {
            parsed.clear();
            parsedFields = 0;
        }
        ParsedTemplate old = parsed.put(pk, new ParsedTemplate(wire, t));
        parsedFields += t.fields().size() - (old == null ? 0 : old.template.fields().size());
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
        boolean same = old != null && Arrays.equals(old.wire(), wire);
        if (!same) {
            TemplateStatus refused = refused(key, template, old);
            if (refused != null) {
                return refused;
            }
        }
        if (old == null) {
            status = TemplateStatus.NEW;
        } else if (same) {
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
        if (wire.length > TemplateWire.encodedTemplateSize(limits.maxFieldsPerTemplate())) {
            return false; // more fields than the stream may teach: not restored either
        }
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
                        && TemplateWire.isOptionsTemplate(e.getValue().wire())
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
        byte[] wire;
        try {
            wire = options.get(k);
        } catch (Exception e) {
            throw new IllegalStateException("options state of " + k, e);
        }
        if (wire == null) {
            return OptionsData.EMPTY;
        }
        OwnedScope ck = new OwnedScope(owner, k);
        DecodedOptions d = decodedOptions.get(ck);
        if (d != null && (d.wire == wire || Arrays.equals(d.wire, wire))) {
            return d.data;
        }
        OptionsData data = TemplateWire.decodeOptions(wire);
        rememberOptions(ck, wire, data);
        return data;
    }

    private void rememberOptions(OwnedScope ck, byte[] wire, OptionsData data) {
        if (decodedOptions.size() >= PARSED_CACHE_LIMIT
                || decodedOptionsBytes + wire.length > DECODED_OPTIONS_MAX_BYTES) {
            decodedOptions.clear();
            decodedOptionsBytes = 0;
        }
        DecodedOptions old = decodedOptions.put(ck, new DecodedOptions(wire, data));
        decodedOptionsBytes += wire.length - (old == null ? 0 : old.wire.length);
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
        rememberOptions(new OwnedScope(owner, k), wire, data);
        learned.add(new Learned(scope, -1, wire, true));
    }

    /**
     * What {@link TemplateLimits} say about a new or changed template, or null if it may be stored.
     * The counts come from one pass over this exporter's templates, on new and changed templates
     * only (a refresh costs nothing). A read-only decode (its changes are dropped) is bounded by
     * its datagram and checked for the field count only.
     */
    private TemplateStatus refused(TemplateKey key, Template template, StoredTemplate old) {
        if (template.fields().size() > limits.maxFieldsPerTemplate()) {
            return TemplateStatus.REJECTED_TOO_LARGE;
        }
        if (readOnly) {
            return null;
        }
        ScopeKey sk = scopeKey(key.scope());
        int count = 0;
        long scopeBytes = 0;
        try {
            for (Map.Entry<TemplateStateKey, StoredTemplate> e : templates.entries()) {
                count++;
                if (e.getKey().in(sk)) {
                    scopeBytes += e.getValue().wire().length;
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("template state", e);
        }
        if (old == null && count >= limits.maxTemplatesPerExporter()) {
            return TemplateStatus.REJECTED_LIMIT;
        }
        return limits.check(template, scopeBytes, old == null ? 0 : old.wire().length);
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
