// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.enrich.Enricher;
import io.flowhouse.enrich.InterfaceDirectory;
import io.flowhouse.enrich.WatchedFile;
import io.flowhouse.enrich.geo.GeoLookup;
import io.flowhouse.enrich.geo.MmdbFile;
import io.flowhouse.enrich.rules.StaticRules;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.metrics.MetricGroup;

/**
 * The enrich stage: each flow with its {@link io.flowhouse.enrich.FlowContext}. Every subtask opens
 * the configured files where it runs and reloads them when they change; lookups answer from memory.
 * Metrics under {@code enrich}: load errors of each file, lookup errors of the databases.
 */
public final class EnrichFlows extends RichMapFunction<FlowRecord, EnrichedFlow> {

    private static final long serialVersionUID = 1L;

    private final EnrichSettings settings;
    private transient Enricher enricher;

    public EnrichFlows(EnrichSettings settings) {
        this.settings = settings;
    }

    /**
     * The interface sources of this subtask, in priority order. The SNMP poller goes first when
     * configured; options data learned by decode will follow it.
     */
    private List<InterfaceDirectory> sources() {
        return new ArrayList<>();
    }

    @Override
    public void open(OpenContext context) {
        WatchedFile<StaticRules> rules = settings.openRules();
        GeoLookup geo = settings.openGeo();
        enricher = new Enricher(new io.flowhouse.enrich.CompositeDirectory(sources()), rules, geo);
        MetricGroup m = getRuntimeContext().getMetricGroup().addGroup("enrich");
        if (rules != null) {
            m.gauge("rulesLoadErrors", rules::loadErrors);
            m.gauge("rulesLoads", rules::loads);
        }
        register(m, "country", geo.countryDb());
        if (geo.asnDb() != geo.countryDb()) {
            register(m, "asn", geo.asnDb());
        }
    }

    private static void register(MetricGroup m, String name, MmdbFile f) {
        if (f != null) {
            m.gauge(name + "LoadErrors", f::loadErrors);
            m.gauge(name + "Loads", f::loads);
            m.gauge(name + "LookupErrors", f::lookupErrors);
        }
    }

    /** The addresses go in as decoded: converting them to {@code InetAddress} cost more. */
    @Override
    public EnrichedFlow map(FlowRecord f) {
        return new EnrichedFlow(
                f,
                enricher.enrich(
                        f.exporterAddress(),
                        f.inputInterface(),
                        f.outputInterface(),
                        f.srcAddr(),
                        f.dstAddr(),
                        f.srcAs(),
                        f.dstAs(),
                        System.nanoTime()));
    }
}
