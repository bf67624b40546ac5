// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.config;

import io.flowhouse.codec.template.OptionsLimits;
import io.flowhouse.codec.template.TemplateLimits;
import java.io.Serializable;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * What the decode step needs, checked once.
 *
 * @param templateHold how long data is held for a template that has not come yet (0 = reject at
 *     once)
 * @param maxHeldDatagrams most datagrams held per exporter key
 * @param scopeMode whether the template scope includes the exporter's UDP port
 * @param sampling which sampling rate each flow carries
 * @param archiveTemplates whether learned templates go to the side output for the templates topic
 * @param templateLimits templates, fields and template bytes an exporter and a scope may hold
 * @param optionsLimits string length, entries and bytes of a scope's options data
 * @param stateLimits bytes, scopes and lifetimes of the decode and statistics state, and the
 *     largest archive record
 * @param eventTime the window around the receive time a flow's times must lie in
 * @param dedup bounds of the duplicate check of stamped datagrams
 */
public record DecodeSettings(
        Duration templateHold,
        int maxHeldDatagrams,
        TemplateScopeMode scopeMode,
        SamplingPolicy sampling,
        boolean archiveTemplates,
        TemplateLimits templateLimits,
        OptionsLimits optionsLimits,
        DecodeStateLimits stateLimits,
        EventTimeSettings eventTime,
        DedupSettings dedup)
        implements Serializable {

    /** Without explicit limits: the codec's defaults. */
    public DecodeSettings(
            Duration templateHold,
            int maxHeldDatagrams,
            TemplateScopeMode scopeMode,
            SamplingPolicy sampling,
            boolean archiveTemplates) {
        this(
                templateHold,
                maxHeldDatagrams,
                scopeMode,
                sampling,
                archiveTemplates,
                TemplateLimits.defaults(),
                OptionsLimits.defaults());
    }

    /** Without state bounds, event-time and duplicate settings: their defaults. */
    public DecodeSettings(
            Duration templateHold,
            int maxHeldDatagrams,
            TemplateScopeMode scopeMode,
            SamplingPolicy sampling,
            boolean archiveTemplates,
            TemplateLimits templateLimits,
            OptionsLimits optionsLimits) {
        this(
                templateHold,
                maxHeldDatagrams,
                scopeMode,
                sampling,
                archiveTemplates,
                templateLimits,
                optionsLimits,
                DecodeStateLimits.defaults());
    }

    /** Without event-time and duplicate settings: their defaults. */
    public DecodeSettings(
            Duration templateHold,
            int maxHeldDatagrams,
            TemplateScopeMode scopeMode,
            SamplingPolicy sampling,
            boolean archiveTemplates,
            TemplateLimits templateLimits,
            OptionsLimits optionsLimits,
            DecodeStateLimits stateLimits) {
        this(
                templateHold,
                maxHeldDatagrams,
                scopeMode,
                sampling,
                archiveTemplates,
                templateLimits,
                optionsLimits,
                stateLimits,
                EventTimeSettings.defaults(),
                DedupSettings.defaults());
    }

    public DecodeSettings {
        if (templateHold.isNegative()) {
            throw new IllegalArgumentException(
                    "template hold " + templateHold + " (expected: >= 0)");
        }
        if (maxHeldDatagrams < 1) {
            throw new IllegalArgumentException(
                    "max held datagrams " + maxHeldDatagrams + " (expected: >= 1)");
        }
    }

    public static DecodeSettings defaults() {
        return new DecodeSettings(
                JobKeys.TEMPLATE_HOLD_TIME.defaultValue(),
                JobKeys.TEMPLATE_HOLD_MAX_DATAGRAMS.defaultValue(),
                TemplateScopeMode.ADDRESS_AND_PORT,
                SamplingPolicy.unsampled(),
                true);
    }

    public DecodeSettings withTemplateHold(Duration hold) {
        return with(d -> d.templateHold = hold);
    }

    public DecodeSettings withScopeMode(TemplateScopeMode mode) {
        return with(d -> d.scopeMode = mode);
    }

    public DecodeSettings withSampling(SamplingPolicy policy) {
        return with(d -> d.sampling = policy);
    }

    public DecodeSettings withLimits(TemplateLimits templates, OptionsLimits options) {
        return with(
                d -> {
                    d.templateLimits = templates;
                    d.optionsLimits = options;
                });
    }

    public DecodeSettings withStateLimits(DecodeStateLimits limits) {
        return with(d -> d.stateLimits = limits);
    }

    public DecodeSettings withEventTime(EventTimeSettings e) {
        return with(d -> d.eventTime = e);
    }

    public DecodeSettings withDedup(DedupSettings settings) {
        return with(d -> d.dedup = settings);
    }

    /** A copy with the values {@code change} sets, through the canonical constructor's checks. */
    private DecodeSettings with(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return d.build();
    }

    /** The values of a DecodeSettings while some change. */
    private static final class Draft {
        Duration templateHold;
        int maxHeldDatagrams;
        TemplateScopeMode scopeMode;
        SamplingPolicy sampling;
        boolean archiveTemplates;
        TemplateLimits templateLimits;
        OptionsLimits optionsLimits;
        DecodeStateLimits stateLimits;
        EventTimeSettings eventTime;
        DedupSettings dedup;

        Draft(DecodeSettings v) {
            templateHold = v.templateHold;
            maxHeldDatagrams = v.maxHeldDatagrams;
            scopeMode = v.scopeMode;
            sampling = v.sampling;
            archiveTemplates = v.archiveTemplates;
            templateLimits = v.templateLimits;
            optionsLimits = v.optionsLimits;
            stateLimits = v.stateLimits;
            eventTime = v.eventTime;
            dedup = v.dedup;
        }

        DecodeSettings build() {
            return new DecodeSettings(
                    templateHold,
                    maxHeldDatagrams,
                    scopeMode,
                    sampling,
                    archiveTemplates,
                    templateLimits,
                    optionsLimits,
                    stateLimits,
                    eventTime,
                    dedup);
        }
    }
}
