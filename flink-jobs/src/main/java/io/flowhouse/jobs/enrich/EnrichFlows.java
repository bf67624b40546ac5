// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.enrich;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.CompositeDirectory;
import io.flowhouse.enrich.EnrichSettings;
import io.flowhouse.enrich.Enricher;
import io.flowhouse.enrich.InterfaceDirectory;
import io.flowhouse.enrich.LearnedInterfaces;
import io.flowhouse.enrich.WatchedFile;
import io.flowhouse.enrich.geo.GeoLookup;
import io.flowhouse.enrich.geo.MmdbFile;
import io.flowhouse.enrich.rules.StaticRules;
import io.flowhouse.enrich.snmp.SnmpCounters;
import io.flowhouse.enrich.snmp.SnmpInterfaceDirectory;
import io.flowhouse.jobs.model.OptionsInterfaceName;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.functions.FilterFunction;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.BroadcastState;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.state.ReadOnlyBroadcastState;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.functions.co.BroadcastProcessFunction;
import org.apache.flink.util.Collector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The enrich stage: each flow with its {@link io.flowhouse.enrich.FlowContext}. Every subtask opens
 * the configured files where it runs and reloads them when they change, and tells the SNMP poller
 * of its TaskManager ({@link SharedSnmpDirectory}) of each flow's exporter; lookups answer from
 * memory.
 *
 * <p>Interface names and descriptions from options data come from decode on a broadcast input
 * ({@link io.flowhouse.jobs.decode.DecodeOutputs#INTERFACE_NAMES}), so every subtask knows every
 * exporter's names whatever the partitioning. They are kept in broadcast state (checkpointed,
 * restored at any parallelism) within {@code enrich.options.max-exporters} and {@code
 * enrich.options.max-interfaces}; what a bound drops is counted ({@code optionsDropped}). Of two
 * subtasks at a bound, each keeps what reached it first.
 *
 * <p>Metrics under {@code enrich}: load errors of each file, lookup errors of the databases,
 * options-data interfaces held and dropped, and the SNMP poller's counters ({@code snmp*}, of the
 * TaskManager's poller: every subtask there shows the same values).
 */
public final class EnrichFlows
        extends BroadcastProcessFunction<FlowRecord, OptionsInterfaceName, EnrichedFlow> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(EnrichFlows.class);

    /** The options-data names held, by exporter address and ifIndex. */
    public static final MapStateDescriptor<String, OptionsInterfaceName> OPTIONS_NAMES =
            new MapStateDescriptor<>(
                    "options-interface-names",
                    TypeInformation.of(String.class),
                    TypeInformation.of(OptionsInterfaceName.class));

    private final EnrichSettings settings;
    private transient Enricher enricher;
    private transient LearnedInterfaces learned;
    private transient SnmpInterfaceDirectory snmp;
    private transient boolean restored;
    private transient long snmpStartErrors;

    public EnrichFlows(EnrichSettings settings) {
        this.settings = settings;
    }

    /**
     * The enrich stage over {@code flows}, with the interface names of {@code names} (null: none).
     */
    public static SingleOutputStreamOperator<EnrichedFlow> attach(
            DataStream<FlowRecord> flows,
            DataStream<OptionsInterfaceName> names,
            EnrichSettings settings) {
        DataStream<OptionsInterfaceName> n = names;
        if (n == null) {
            n =
                    flows.getExecutionEnvironment()
                            .fromData(
                                    TypeInformation.of(OptionsInterfaceName.class),
                                    new OptionsInterfaceName(IpAddress.UNSPECIFIED, 0, ""))
                            .filter(new NoNames());
        }
        return flows.connect(n.broadcast(OPTIONS_NAMES))
                .process(new EnrichFlows(settings), TypeInformation.of(EnrichedFlow.class));
    }

    /** Drops the placeholder of a stage without options data. */
    private static final class NoNames implements FilterFunction<OptionsInterfaceName> {
        @Override
        public boolean filter(OptionsInterfaceName n) {
            return false;
        }
    }

    /**
     * The interface sources of this subtask, in priority order: the SNMP poller when configured
     * (and started), then the options data learned from decode.
     */
    private List<InterfaceDirectory> sources() {
        List<InterfaceDirectory> sources = new ArrayList<>();
        if (snmp != null) {
            sources.add(snmp);
        }
        sources.add(learned);
        return sources;
    }

    @Override
    public void open(OpenContext context) {
        learned = settings.newLearnedInterfaces();
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
        WatchedFile<StaticRules> rules = settings.openRules();
        GeoLookup geo = settings.openGeo();
        enricher = new Enricher(new CompositeDirectory(sources()), rules, geo);
        MetricGroup m = getRuntimeContext().getMetricGroup().addGroup("enrich");
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

    /** The addresses go in as decoded: converting them to {@code InetAddress} cost more. */
    @Override
    public void close() {
        if (snmp != null) {
            SharedSnmpDirectory.release(settings.snmp(), snmp);
            snmp = null;
        }
    }

    /** Fills the in-memory directory from restored broadcast state, once. */
    private void restore(Iterable<Map.Entry<String, OptionsInterfaceName>> entries) {
        if (!restored) {
            restored = true;
            for (Map.Entry<String, OptionsInterfaceName> e : entries) {
                learn(e.getValue());
            }
        }
    }

    private boolean learn(OptionsInterfaceName n) {
        return learned.learn(n.exporter().toInetAddress(), n.ifIndex(), n.name(), n.description());
    }

    @Override
    public void processBroadcastElement(
            OptionsInterfaceName n, Context ctx, Collector<EnrichedFlow> out) throws Exception {
        BroadcastState<String, OptionsInterfaceName> state = ctx.getBroadcastState(OPTIONS_NAMES);
        restore(state.entries());
        if (learn(n)) {
            state.put(n.exporter() + " " + n.ifIndex(), n);
        }
    }

    @Override
    public void processElement(FlowRecord f, ReadOnlyContext ctx, Collector<EnrichedFlow> out)
            throws Exception {
        if (!restored) {
            ReadOnlyBroadcastState<String, OptionsInterfaceName> state =
                    ctx.getBroadcastState(OPTIONS_NAMES);
            restore(state.immutableEntries());
        }
        out.collect(
                new EnrichedFlow(
                        f,
                        enricher.enrich(
                                f.exporterAddress(),
                                f.inputInterface(),
                                f.outputInterface(),
                                f.srcAddr(),
                                f.dstAddr(),
                                f.srcAs(),
                                f.dstAs(),
                                System.nanoTime())));
    }
}
