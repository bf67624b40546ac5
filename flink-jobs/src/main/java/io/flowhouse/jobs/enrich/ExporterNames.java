// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.enrich.CompositeDirectory;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.enrich.Enricher;
import io.flowhouse.enrich.InterfaceDirectory;
import io.flowhouse.enrich.geo.GeoLookup;
import io.flowhouse.enrich.snmp.SnmpInterfaceDirectory;
import io.flowhouse.jobs.stats.ExporterStats;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Names the exporter of each {@code exporter_stats} row as the enrich stage names it: the rules
 * file's name, else SNMP {@code sysName} (the TaskManager's shared poller, {@link
 * SharedSnmpDirectory}), else ''. Rows are one per exporter scope and minute: no per-flow cost.
 */
public final class ExporterNames extends RichMapFunction<ExporterStats, ExporterStats> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ExporterNames.class);

    private final EnrichSettings settings;
    private transient Enricher enricher;
    private transient SnmpInterfaceDirectory snmp;

    public ExporterNames(EnrichSettings settings) {
        this.settings = settings;
    }

    @Override
    public void open(OpenContext context) {
        List<InterfaceDirectory> sources = new ArrayList<>();
        if (settings.snmp() != null) {
            try {
                snmp = SharedSnmpDirectory.acquire(settings.snmp());
                sources.add(snmp);
            } catch (Exception e) {
                LOG.error(
                        "exporter names: SNMP is off in this subtask: {} (credentials file {})",
                        e.getMessage(),
                        settings.snmp().credentialsFile());
            }
        }
        enricher =
                new Enricher(
                        new CompositeDirectory(sources),
                        settings.openRules(),
                        new GeoLookup(null, null, settings.asnOrder()));
    }

    @Override
    public void close() {
        if (snmp != null) {
            SharedSnmpDirectory.release(settings.snmp(), snmp);
            snmp = null;
        }
    }

    @Override
    public ExporterStats map(ExporterStats s) {
        InetAddress exporter = s.exporterAddress().toInetAddress();
        String name =
                enricher.enrich(exporter, 0, 0, exporter, exporter, 0, 0, System.nanoTime())
                        .exporter()
                        .name();
        return s.withExporterName(name == null ? "" : name);
    }
}
