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
import io.flowhouse.jobs.config.DecodeStateLimits;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.model.ExporterFootprint;
import io.flowhouse.jobs.model.ScopeKey;
import io.flowhouse.jobs.model.ScopeUsage;
import io.flowhouse.jobs.model.StoredTemplate;
import io.flowhouse.jobs.model.TemplateStateKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.api.common.state.MapState;

/**
 * The codec's {@link TemplateCache} over Flink keyed state: templates in a {@code
 * MapState<TemplateStateKey, StoredTemplate>}, options data in a {@code MapState<ScopeKey,
 * byte[]>}, both in {@link TemplateWire} form, and what each scope holds in a {@code
 * MapState<ScopeKey, ScopeUsage>}, under the current key. This is where the template scope rule
 * applies: the key is the exporter that owns the template space ({@code TemplateScopeMode#owner}),
 * so a {@link TemplateScope} is stored by version and observation domain only, and one exporter's
 * observation domains stay apart.
 *
 * <p>Bounds: every byte stored is reserved in the key's {@link ExporterBudget} first (per exporter
 * and per instance), templates and scopes are counted in its footprint, and a scope's template
 * bytes in its {@link ScopeUsage}, so each check is O(1). Lifetimes: a template expires when a
 * datagram is received more than the template lifetime after its last re-send (receive time, RFC
 * 7011 section 8.4); an expired or withdrawn template leaves state and goes to the archive as an
 * ended entry ({@link #toArchive}).
 *
 * <p>Withdrawals also leave a mark in a {@code MapState<TemplateStateKey, Long>} (the receive time
 * of the withdrawal; a withdraw-all under the scope's set id, 2 for templates, 3 for options
 * templates), whether or not the template was in state: an archived template learned before a
 * withdrawal is restored ended at it, whichever of the two inputs reaches the key first. Marks
 * count against the template cap per exporter and its bytes, and are swept a template lifetime
 * (plus the archive's lag) after the withdrawal.
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

    /** A re-send is written to state when it moves the last-seen time by this much. */
    private static final long LAST_SEEN_GRANULE_MILLIS = 1_000L;

    /** Where a withdraw-all of a scope's templates is marked (the IPFIX template set id). */
    static final int ALL_TEMPLATES = 2;

    /** Where a withdraw-all of a scope's options templates is marked (its set id). */
    static final int ALL_OPTIONS_TEMPLATES = 3;

    /**
     * A template or options data that this datagram taught (new or changed).
     *
     * @param before options data: what the scope held before (empty when new); null for a template
     * @param after options data: what it holds now; null for a template
     */
    public record Learned(
            TemplateScope scope,
            int templateId,
            byte[] wire,
            boolean options,
            OptionsData before,
            OptionsData after) {

        /** A template. */
        Learned(TemplateScope scope, int templateId, byte[] wire) {
            this(scope, templateId, wire, false, null, null);
        }
    }

    private final MapState<TemplateStateKey, StoredTemplate> templates;
    private final MapState<ScopeKey, byte[]> options;
    private final MapState<ScopeKey, ScopeUsage> scopes;
    private final MapState<TemplateStateKey, Long> withdrawals;
    private final TemplateLimits limits;
    private final int maxScopes;
    private final long lifetimeMillis;
    private final long archiveRefreshMillis;
    private final ExporterBudget budget;
    private final DecodeMetrics metrics;

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
    private final List<ArchivedTemplate> toArchive = new ArrayList<>();
    private final List<TemplateStateKey> installed = new ArrayList<>();
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
     * @param stateLimits scopes per exporter and the template lifetime
     * @param budget the bytes of the current key
     */
    StateBackedTemplateCache(
            MapState<TemplateStateKey, StoredTemplate> templates,
            MapState<ScopeKey, byte[]> options,
            MapState<ScopeKey, ScopeUsage> scopes,
            MapState<TemplateStateKey, Long> withdrawals,
            TemplateLimits limits,
            DecodeStateLimits stateLimits,
            ExporterBudget budget,
            DecodeMetrics metrics) {
        this.templates = templates;
        this.options = options;
        this.scopes = scopes;
        this.withdrawals = withdrawals;
        this.limits = limits;
        this.maxScopes = stateLimits.maxScopesPerExporter();
        this.lifetimeMillis = stateLimits.templateLifetime().toMillis();
        this.archiveRefreshMillis = Math.max(1, lifetimeMillis / 4);
        this.budget = budget;
        this.metrics = metrics;
    }

    /** Bytes a template or options entry counts for in the exporter's state. */
    static long cost(byte[] wire) {
        return wire.length + DecodeStateLimits.ENTRY_OVERHEAD;
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
        toArchive.clear();
        installed.clear();
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

    /**
     * What the templates topic should be told since the last bind: templates and options data
     * learned, re-sends of templates the archive last heard of a quarter lifetime ago, and
     * templates that ended (withdrawn, expired) with the layout they had.
     */
    List<ArchivedTemplate> toArchive() {
        return toArchive;
    }

    /** Templates that became usable since the last bind: held datagrams may wait for them. */
    List<TemplateStateKey> installed() {
        return installed;
    }

    static TemplateStateKey templateKey(TemplateKey key) {
        return new TemplateStateKey(
                key.scope().version(), key.scope().observationDomainId(), key.templateId());
    }

    static ScopeKey scopeKey(TemplateScope scope) {
        return new ScopeKey(scope.version(), scope.observationDomainId());
    }

    private static ScopeKey scopeOf(TemplateStateKey k) {
        return new ScopeKey(k.version(), k.observationDomainId());
    }

    @Override
    public Optional<Template> find(TemplateKey key) {
        TemplateStateKey k = templateKey(key);
        StoredTemplate s = overlay.get(k);
        if (s == null) {
            s = get(k);
            if (s == null) {
                return Optional.empty();
            }
            if (!s.usableAt(receivedMillis, lifetimeMillis)) {
                if (!readOnly && s.endedBy(receivedMillis, lifetimeMillis)) {
                    drop(k, s, ArchivedTemplate.End.EXPIRED);
                }
                return Optional.empty();
            }
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
        if (readOnly) {
            if (template.fields().size() > limits.maxFieldsPerTemplate()) {
                return TemplateStatus.REJECTED_TOO_LARGE;
            }
            StoredTemplate old = overlay.get(k);
            overlay.put(k, StoredTemplate.seen(wire, receivedMillis, receivedMillis));
            return old == null ? TemplateStatus.NEW : TemplateStatus.REPLACED;
        }
        StoredTemplate old = get(k);
        if (old != null && old.endedBy(receivedMillis, lifetimeMillis)) {
            drop(k, old, ArchivedTemplate.End.EXPIRED);
            old = null;
        }
        if (old != null && Arrays.equals(old.wire(), wire)) {
            return refresh(k, key, old);
        }
        if (template.fields().size() > limits.maxFieldsPerTemplate()) {
            return TemplateStatus.REJECTED_TOO_LARGE;
        }
        TemplateStatus refused = store(k, wire, old, template.isOptions(), true);
        if (refused != null) {
            return refused;
        }
        learned.add(new Learned(key.scope(), key.templateId(), wire));
        archive(k, StoredTemplate.seen(wire, receivedMillis, receivedMillis), null);
        installed.add(k);
        return old == null ? TemplateStatus.NEW : TemplateStatus.REPLACED;
    }

    /** The same layout again: lifetime renewed; an archived template becomes the stream's. */
    private TemplateStatus refresh(TemplateStateKey k, TemplateKey key, StoredTemplate old) {
        StoredTemplate s = old;
        if (old.archived()) {
            s =
                    new StoredTemplate(
                            old.wire(),
                            Math.min(old.validFromMillis(), receivedMillis),
                            receivedMillis,
                            Long.MAX_VALUE,
                            0L,
                            false);
            installed.add(k);
        } else if (receivedMillis - old.lastSeenMillis() >= LAST_SEEN_GRANULE_MILLIS) {
            s = old.withLastSeen(receivedMillis);
        }
        if (receivedMillis - s.archivedMillis() >= archiveRefreshMillis) {
            s = s.withArchived(receivedMillis);
            archive(k, s, null);
        }
        if (s != old) {
            set(k, s);
        }
        return TemplateStatus.REFRESHED;
    }

    /**
     * Stores a new or changed template within every bound, or says which refused it.
     *
     * @param stream whether it comes from the stream (else from the archive: counted apart)
     * @return null when stored
     */
    private TemplateStatus store(
            TemplateStateKey k,
            byte[] wire,
            StoredTemplate old,
            boolean isOptions,
            boolean stream) {
        // Archived below as learned now: the next refresh goes to the archive a quarter lifetime
        // on.
        StoredTemplate s =
                StoredTemplate.seen(wire, receivedMillis, receivedMillis)
                        .withArchived(receivedMillis);
        return storeAs(k, s, old, isOptions, stream);
    }

    private TemplateStatus storeAs(
            TemplateStateKey k,
            StoredTemplate s,
            StoredTemplate old,
            boolean isOptions,
            boolean stream) {
        try {
            ExporterFootprint fp = budget.peek();
            if (old == null && fp != null && fp.templates >= limits.maxTemplatesPerExporter()) {
                return limitRefused(stream);
            }
            ScopeKey sk = scopeOf(k);
            ScopeUsage su = scopes.get(sk);
            boolean newScope = su == null;
            if (newScope && fp != null && fp.scopes >= maxScopes) {
                refused(stream);
                return TemplateStatus.REJECTED_LIMIT;
            }
            ScopeUsage u = newScope ? ScopeUsage.EMPTY : su;
            long oldBytes = old == null ? 0 : old.wire().length;
            long after = u.templateBytes() - oldBytes + s.wire().length;
            if (after > limits.maxBytesPerScope() && after > u.templateBytes()) {
                return limitRefused(stream);
            }
            long delta =
                    cost(s.wire())
                            - (old == null ? 0 : cost(old.wire()))
                            + (newScope ? DecodeStateLimits.ENTRY_OVERHEAD : 0);
            if (!budget.reserve(delta)) {
                refused(stream);
                return TemplateStatus.REJECTED_LIMIT;
            }
            fp = budget.edit();
            if (old != null) {
                u = u.withTemplate(TemplateWire.isOptionsTemplate(old.wire()), oldBytes, -1);
            } else {
                fp.templates++;
            }
            if (newScope) {
                fp.scopes++;
            }
            scopes.put(sk, u.withTemplate(isOptions, s.wire().length, 1));
            templates.put(k, s);
            return null;
        } catch (Exception e) {
            throw new IllegalStateException("template state of " + k, e);
        }
    }

    /** A state bound (bytes, scopes) refused a template: counted here. */
    private void refused(boolean stream) {
        (stream ? metrics.refusedTemplates : metrics.refusedRestores).inc();
    }

    /**
     * A {@link TemplateLimits} bound refused a template: the decoder counts the stream's ({@code
     * TEMPLATE_FLOOD}), restores are counted here.
     */
    private TemplateStatus limitRefused(boolean stream) {
        if (!stream) {
            metrics.refusedRestores.inc();
        }
        return TemplateStatus.REJECTED_LIMIT;
    }

    /**
     * Installs a template or options data from the templates topic: an entry the stream has not
     * superseded, within the same bounds as the stream's. A template's archived end (withdrawn,
     * expired) comes with it, so data received after that end does not decode with it.
     *
     * @return true if state changed
     */
    public boolean restore(ArchivedTemplate t) {
        ScopeKey scope = new ScopeKey(t.version(), t.observationDomainId());
        return t.isOptionsData() ? restoreOptions(scope, t.wire()) : restoreTemplate(scope, t);
    }

    private boolean restoreTemplate(ScopeKey scope, ArchivedTemplate t) {
        TemplateStateKey k = scope.template(t.templateId());
        if (t.wire().length > TemplateWire.encodedTemplateSize(limits.maxFieldsPerTemplate())) {
            metrics.refusedRestores.inc(); // more fields than the stream may teach
            return false;
        }
        StoredTemplate old = get(k);
        if (old != null
                && (!old.archived()
                        || old.validFromMillis() > t.learnedMillis()
                        || (old.validFromMillis() == t.learnedMillis()
                                && old.validUntilMillis() <= t.endedMillis()))) {
            return false;
        }
        // The archive hears of re-sends a quarter lifetime apart: the last one may be that late.
        long lastSeen =
                t.lastSeenMillis() > Long.MAX_VALUE - archiveRefreshMillis
                        ? Long.MAX_VALUE
                        : t.lastSeenMillis() + archiveRefreshMillis;
        boolean isOptions = TemplateWire.isOptionsTemplate(t.wire());
        long ended = Math.min(t.endedMillis(), withdrawnAfter(k, isOptions, t.learnedMillis()));
        StoredTemplate s =
                new StoredTemplate(
                        t.wire(), t.learnedMillis(), lastSeen, ended, t.lastSeenMillis(), true);
        if (storeAs(k, s, old, isOptions, false) != null) {
            return false;
        }
        installed.add(k);
        return true;
    }

    /**
     * The receive time of the first withdrawal marked for {@code k} (itself or its scope's
     * withdraw-all of its kind) after {@code learnedMillis}, else {@code Long.MAX_VALUE}. A
     * withdrawal in the datagram that taught the template came before it.
     */
    private long withdrawnAfter(TemplateStateKey k, boolean isOptions, long learnedMillis) {
        long end = Long.MAX_VALUE;
        for (TemplateStateKey m :
                List.of(
                        k,
                        new TemplateStateKey(
                                k.version(),
                                k.observationDomainId(),
                                isOptions ? ALL_OPTIONS_TEMPLATES : ALL_TEMPLATES))) {
            Long at = withdrawal(m);
            if (at != null && at > learnedMillis) {
                end = Math.min(end, at);
            }
        }
        return end;
    }

    private Long withdrawal(TemplateStateKey m) {
        try {
            return withdrawals.get(m);
        } catch (Exception e) {
            throw new IllegalStateException("withdrawal state of " + m, e);
        }
    }

    /**
     * Marks {@code m} withdrawn at the current receive time (the latest withdrawal is kept), within
     * the exporter's template cap and bytes; refused marks are counted.
     */
    private void markWithdrawn(TemplateStateKey m) {
        try {
            Long at = withdrawals.get(m);
            if (at != null) {
                if (receivedMillis > at) {
                    withdrawals.put(m, receivedMillis);
                }
                return;
            }
            ExporterFootprint fp = budget.peek();
            if ((fp != null && fp.withdrawals >= limits.maxTemplatesPerExporter())
                    || !budget.reserve(DecodeStateLimits.ENTRY_OVERHEAD)) {
                metrics.refusedWithdrawalMarks.inc();
                return;
            }
            budget.edit().withdrawals++;
            withdrawals.put(m, receivedMillis);
            metrics.withdrawalMarks.inc();
        } catch (Exception e) {
            throw new IllegalStateException("withdrawal state of " + m, e);
        }
    }

    /** Installs options data from the templates topic when the scope has none yet. */
    private boolean restoreOptions(ScopeKey k, byte[] wire) {
        try {
            if (options.contains(k)) {
                return false;
            }
            return storeOptions(k, wire, null, false);
        } catch (Exception e) {
            throw new IllegalStateException("options state of " + k, e);
        }
    }

    @Override
    public boolean remove(TemplateKey key) {
        TemplateStateKey k = templateKey(key);
        if (readOnly) {
            return overlay.remove(k) != null;
        }
        markWithdrawn(k);
        StoredTemplate s = get(k);
        if (s == null) {
            return false;
        }
        drop(k, s, ArchivedTemplate.End.WITHDRAWN);
        return true;
    }

    @Override
    public int removeAll(TemplateScope scope, boolean optionsTemplates) {
        if (readOnly) {
            return 0;
        }
        ScopeKey sk = scopeKey(scope);
        markWithdrawn(sk.template(optionsTemplates ? ALL_OPTIONS_TEMPLATES : ALL_TEMPLATES));
        try {
            ScopeUsage su = scopes.get(sk);
            if (su == null || su.templates(optionsTemplates) == 0) {
                return 0; // nothing to walk: a flood of withdraw-alls costs one read each
            }
            List<Map.Entry<TemplateStateKey, StoredTemplate>> gone = new ArrayList<>();
            for (Map.Entry<TemplateStateKey, StoredTemplate> e : templates.entries()) {
                if (e.getKey().in(sk)
                        && TemplateWire.isOptionsTemplate(e.getValue().wire())
                                == optionsTemplates) {
                    gone.add(Map.entry(e.getKey(), e.getValue()));
                }
            }
            for (Map.Entry<TemplateStateKey, StoredTemplate> e : gone) {
                drop(e.getKey(), e.getValue(), ArchivedTemplate.End.WITHDRAWN);
            }
            return gone.size();
        } catch (Exception e) {
            throw new IllegalStateException("template state of scope " + sk, e);
        }
    }

    @Override
    public void evictScope(TemplateScope scope) {
        if (readOnly) {
            return;
        }
        ScopeKey sk = scopeKey(scope);
        try {
            List<Map.Entry<TemplateStateKey, StoredTemplate>> gone = new ArrayList<>();
            for (Map.Entry<TemplateStateKey, StoredTemplate> e : templates.entries()) {
                if (e.getKey().in(sk)) {
                    gone.add(Map.entry(e.getKey(), e.getValue()));
                }
            }
            for (Map.Entry<TemplateStateKey, StoredTemplate> e : gone) {
                drop(e.getKey(), e.getValue(), ArchivedTemplate.End.WITHDRAWN);
            }
            byte[] o = options.get(sk);
            if (o != null) {
                options.remove(sk);
                budget.release(cost(o));
                updateScope(sk, scopes.get(sk).withOptionsBytes(0));
            }
        } catch (Exception e) {
            throw new IllegalStateException("template state of scope " + sk, e);
        }
    }

    /**
     * Removes an ended template from state, gives its bytes back and archives its end (unless the
     * archive told us of it).
     */
    private void drop(TemplateStateKey k, StoredTemplate s, ArchivedTemplate.End end) {
        try {
            templates.remove(k);
            budget.release(cost(s.wire()));
            ExporterFootprint fp = budget.edit();
            if (fp != null) {
                fp.templates = Math.max(0, fp.templates - 1);
            }
            ScopeKey sk = scopeOf(k);
            ScopeUsage su = scopes.get(sk);
            if (su != null) {
                updateScope(
                        sk,
                        su.withTemplate(
                                TemplateWire.isOptionsTemplate(s.wire()), s.wire().length, -1));
            }
        } catch (Exception e) {
            throw new IllegalStateException("template state of " + k, e);
        }
        (end == ArchivedTemplate.End.WITHDRAWN
                        ? metrics.templatesWithdrawn
                        : metrics.templatesExpired)
                .inc();
        if (!s.endArchived()) {
            long at =
                    end == ArchivedTemplate.End.WITHDRAWN
                            ? receivedMillis
                            : saturatedAdd(s.lastSeenMillis(), lifetimeMillis);
            archive(k, s, new Ended(Math.max(at, s.validFromMillis()), end));
        }
    }

    private record Ended(long atMillis, ArchivedTemplate.End end) {}

    private static long saturatedAdd(long a, long b) {
        return a > Long.MAX_VALUE - b ? Long.MAX_VALUE - 1 : a + b;
    }

    /** Writes a scope's usage back, or removes it (and counts the scope gone) when empty. */
    private void updateScope(ScopeKey sk, ScopeUsage u) throws Exception {
        if (u.empty()) {
            scopes.remove(sk);
            budget.release(DecodeStateLimits.ENTRY_OVERHEAD);
            ExporterFootprint fp = budget.edit();
            if (fp != null) {
                fp.scopes = Math.max(0, fp.scopes - 1);
            }
        } else {
            scopes.put(sk, u);
        }
    }

    private void archive(TemplateStateKey k, StoredTemplate s, Ended ended) {
        toArchive.add(
                new ArchivedTemplate(
                        owner.address(),
                        owner.port(),
                        k.version(),
                        k.observationDomainId(),
                        k.templateId(),
                        s.wire(),
                        s.validFromMillis(),
                        s.lastSeenMillis(),
                        ended == null ? Long.MAX_VALUE : ended.atMillis(),
                        ended == null ? ArchivedTemplate.End.LIVE : ended.end()));
    }

    /**
     * Removes the templates of this key that expired by receive time {@code lastReceivedMillis}
     * (the key's latest datagram), archiving their ends; returns how many. Walks the key's
     * templates: called once per idle timeout of a key, not per datagram.
     */
    int sweepExpired(ExporterKey owner, long lastReceivedMillis) throws Exception {
        bind(owner, lastReceivedMillis);
        List<Map.Entry<TemplateStateKey, StoredTemplate>> gone = new ArrayList<>();
        for (Map.Entry<TemplateStateKey, StoredTemplate> e : templates.entries()) {
            if (e.getValue().endedBy(lastReceivedMillis, lifetimeMillis)) {
                gone.add(Map.entry(e.getKey(), e.getValue()));
            }
        }
        for (Map.Entry<TemplateStateKey, StoredTemplate> e : gone) {
            drop(e.getKey(), e.getValue(), ArchivedTemplate.End.EXPIRED);
        }
        sweepWithdrawals(lastReceivedMillis);
        return gone.size();
    }

    /**
     * Forgets the withdrawal marks no archived template can still need: one learned before the
     * withdrawal ended a lifetime after its last re-send, and the archive may have heard of that
     * re-send a quarter lifetime late.
     */
    private void sweepWithdrawals(long lastReceivedMillis) throws Exception {
        long keep = saturatedAdd(lifetimeMillis, archiveRefreshMillis);
        List<TemplateStateKey> gone = new ArrayList<>();
        for (Map.Entry<TemplateStateKey, Long> e : withdrawals.entries()) {
            if (lastReceivedMillis - e.getValue() > keep) {
                gone.add(e.getKey());
            }
        }
        for (TemplateStateKey m : gone) {
            withdrawals.remove(m);
            budget.release(DecodeStateLimits.ENTRY_OVERHEAD);
            ExporterFootprint fp = budget.edit();
            if (fp != null) {
                fp.withdrawals = Math.max(0, fp.withdrawals - 1);
            }
        }
    }

    /**
     * Forgets everything this key holds (it has been idle), archiving the end of each template the
     * stream taught: it expired a lifetime after its last re-send.
     */
    void clearIdle(ExporterKey owner) throws Exception {
        bind(owner, Long.MIN_VALUE);
        for (Map.Entry<TemplateStateKey, StoredTemplate> e : templates.entries()) {
            StoredTemplate s = e.getValue();
            if (!s.endArchived() && !s.archived()) {
                metrics.templatesExpired.inc();
                archive(
                        e.getKey(),
                        s,
                        new Ended(
                                Math.max(
                                        saturatedAdd(s.lastSeenMillis(), lifetimeMillis),
                                        s.validFromMillis()),
                                ArchivedTemplate.End.EXPIRED));
            }
        }
        clear();
    }

    /** Forgets everything this key holds, archiving nothing (its input has ended). */
    void clear() {
        templates.clear();
        options.clear();
        scopes.clear();
        withdrawals.clear();
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
        return decoded(new OwnedScope(owner, k), wire);
    }

    /** The options data of stored bytes: decoded once while the cache keeps them. */
    private OptionsData decoded(OwnedScope ck, byte[] wire) {
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
        OwnedScope ck = new OwnedScope(owner, k);
        OptionsData before;
        try {
            byte[] old = options.get(k);
            if (old != null && Arrays.equals(old, wire)) {
                return;
            }
            // Before it is replaced: what changed is what the enrich stage is told.
            before = old == null ? OptionsData.EMPTY : decoded(ck, old);
            if (!storeOptions(k, wire, old, true)) {
                return; // the scope keeps what it had
            }
        } catch (Exception e) {
            throw new IllegalStateException("options state of " + k, e);
        }
        rememberOptions(ck, wire, data);
        learned.add(new Learned(scope, -1, wire, true, before, data));
        toArchive.add(
                new ArchivedTemplate(
                        owner.address(),
                        owner.port(),
                        k.version(),
                        k.observationDomainId(),
                        ArchivedTemplate.OPTIONS_DATA,
                        wire,
                        receivedMillis));
    }

    /** Stores a scope's options data within the bounds; false (counted) when refused. */
    private boolean storeOptions(ScopeKey k, byte[] wire, byte[] old, boolean stream)
            throws Exception {
        ScopeUsage su = scopes.get(k);
        boolean newScope = su == null;
        ExporterFootprint fp = budget.peek();
        long delta =
                cost(wire)
                        - (old == null ? 0 : cost(old))
                        + (newScope ? DecodeStateLimits.ENTRY_OVERHEAD : 0);
        if ((newScope && fp != null && fp.scopes >= maxScopes) || !budget.reserve(delta)) {
            (stream ? metrics.refusedOptions : metrics.refusedRestores).inc();
            return false;
        }
        fp = budget.edit();
        if (newScope) {
            fp.scopes++;
        }
        options.put(k, wire);
        scopes.put(k, (newScope ? ScopeUsage.EMPTY : su).withOptionsBytes(wire.length));
        return true;
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
