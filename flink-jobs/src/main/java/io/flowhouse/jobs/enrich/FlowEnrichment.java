// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.CompositeDirectory;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.enrich.Enricher;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.InterfaceDirectory;
import io.flowhouse.enrich.LearnedInterfaces;
import io.flowhouse.enrich.LearnedVrfs;
import io.flowhouse.enrich.WatchedFile;
import io.flowhouse.enrich.geo.GeoLookup;
import io.flowhouse.enrich.geo.MmdbFile;
import io.flowhouse.enrich.rules.StaticRules;
import io.flowhouse.enrich.snmp.SnmpCounters;
import io.flowhouse.enrich.snmp.SnmpInterfaceDirectory;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subtask's enrichment: the configured files opened where it runs (reloaded when they change),
 * the SNMP poller of its TaskManager ({@link SharedSnmpDirectory}), told of each flow's exporter,
 * and the options-data interface and VRF names its host learned ({@link #learn}, {@link
 * #learnVrf}); lookups answer from memory. Run by decode itself (the names are decode's own state:
 * no second input, so decode, enrich and the sinks stay one chain) and by {@link EnrichFlows} for
 * flows that do not come from decode.
 *
 * <p>The options-data names are held within {@code enrich.options.max-exporters} and {@code
 * enrich.options.max-interfaces}, the VRF names within {@code enrich.options.max-vrfs}; what a
 * bound drops is counted ({@code optionsDropped}, {@code optionsVrfsDropped}).
 *
 * <p>Metrics under {@code enrich}: load errors of each file, lookup errors of the databases,
 * options-data interfaces held and dropped, and the SNMP poller's counters ({@code snmp*}, of the
 * TaskManager's poller: every subtask there shows the same values).
 */
public final class FlowEnrichment implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(FlowEnrichment.class);

    private final EnrichSettings settings;
    private final LearnedInterfaces learned;
    private final LearnedVrfs vrfs;
    private final Enricher enricher;
    private final WatchedFile<StaticRules> rules;
    private final GeoLookup geo;
    private SnmpInterfaceDirectory snmp;
    private long snmpStartErrors;

    private FlowEnrichment(EnrichSettings settings) {
        this.settings = settings;
        this.learned = settings.newLearnedInterfaces();
        this.vrfs = settings.newLearnedVrfs();
        if (settings.snmp() != null) {
            try {
                snmp = SharedSnmpDirectory.acquire(settings.snmp());
            } catch (Exception e) {
                // Flows still flow, without SNMP's names; the metric and this line say why.
                snmpStartErrors++;
                LOG.error(
                        "enrich: SNMP polling is off in this subtask: {} (credentials file {})",
                        e.getMessage(),
                        settings.snmp().credentialsFile());
            }
        }
        rules = settings.openRules();
        geo = settings.openGeo();
        // Interface sources in priority order: SNMP when configured (and started), then the
        // options data.
        List<InterfaceDirectory> sources = new ArrayList<>();
        if (snmp != null) {
            sources.add(snmp);
        }
        sources.add(learned);
        enricher = new Enricher(new CompositeDirectory(sources), rules, geo);
    }

    /** Opens the sources of {@code settings} and registers the metrics under {@code group}. */
    public static FlowEnrichment open(EnrichSettings settings, MetricGroup group) {
        FlowEnrichment e = new FlowEnrichment(settings);
        e.register(group.addGroup("enrich"));
        return e;
    }

    private void register(MetricGroup m) {
        if (rules != null) {
            m.gauge("rulesLoadErrors", rules::loadErrors);
            m.gauge("rulesLoads", rules::loads);
        }
        register(m, "country", geo.countryDb());
        if (geo.asnDb() != geo.countryDb()) {
            register(m, "asn", geo.asnDb());
        }
        m.gauge("optionsInterfaces", learned::size);
        m.gauge("optionsDropped", learned::dropped);
        m.gauge("optionsVrfs", vrfs::size);
        m.gauge("optionsVrfsDropped", vrfs::dropped);
        if (settings.snmp() != null) {
            m.gauge("snmpStartErrors", () -> snmpStartErrors);
        }
        if (snmp != null) {
            SnmpCounters c = snmp.counters();
            m.gauge("snmpPollsOk", c::pollsOk);
            m.gauge("snmpPollsFailed", c::pollsFailed);
            m.gauge("snmpPollsTimedOut", c::pollsTimedOut);
            m.gauge("snmpExportersDropped", c::exportersDropped);
            m.gauge("snmpExportersWithoutCredentials", c::exportersWithoutCredentials);
            m.gauge("snmpTablesCut", c::tablesCut);
            m.gauge("snmpValuesTruncated", c::valuesTruncated);
            m.gauge("snmpExporters", snmp::exporterCount);
            m.gauge("snmpInFlight", snmp::inFlight);
        }
    }

    private static void register(MetricGroup m, String name, MmdbFile f) {
        if (f != null) {
            m.gauge(name + "LoadErrors", f::loadErrors);
            m.gauge(name + "Loads", f::loads);
            m.gauge(name + "LookupErrors", f::lookupErrors);
        }
    }

    /**
     * Records an options-data name and description of {@code exporter}'s {@code ifIndex} (empty
     * keeps what was known).
     *
     * @return false when a bound dropped it
     */
    public boolean learn(IpAddress exporter, long ifIndex, String name, String description) {
        return learned.learn(exporter.toInetAddress(), ifIndex, name, description);
    }

    /**
     * Records an options-data VRF name of {@code exporter}'s {@code vrfId} (empty keeps what was
     * known).
     *
     * @return false when a bound dropped it
     */
    public boolean learnVrf(IpAddress exporter, long vrfId, String name) {
        return vrfs.learn(exporter.toInetAddress(), vrfId, name);
    }

    /** Options-data VRF names held. */
    public int optionsVrfs() {
        return vrfs.size();
    }

    /** Options-data interfaces held. */
    public int optionsInterfaces() {
        return learned.size();
    }

    /** The flow with its context. The addresses go in as decoded: {@code InetAddress} cost more. */
    public EnrichedFlow enrich(FlowRecord f) {
        FlowContext c =
                enricher.enrich(
                        f.exporterAddress(),
                        f.inputInterface(),
                        f.outputInterface(),
                        f.srcAddr(),
                        f.dstAddr(),
                        f.srcAs(),
                        f.dstAs(),
                        System.nanoTime());
        if (f.inputVrfId() != 0 || f.outputVrfId() != 0) {
            // Only flows that name a VRF pay for the address conversion and the copy.
            InetAddress exporter = f.exporterAddress().toInetAddress();
            c =
                    c.withVrfNames(
                            vrfs.name(exporter, f.inputVrfId()),
                            vrfs.name(exporter, f.outputVrfId()));
        }
        return new EnrichedFlow(f, c);
    }

    @Override
    public void close() {
        if (snmp != null) {
            SharedSnmpDirectory.release(settings.snmp(), snmp);
            snmp = null;
        }
    }
}
