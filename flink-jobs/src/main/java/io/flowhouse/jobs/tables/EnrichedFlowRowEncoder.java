// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.jobs.enrich.EnrichedFlow;
import io.flowhouse.sinks.clickhouse.ClickHouseRowEncoder;
import io.flowhouse.sinks.clickhouse.RowBinaryOutput;
import io.flowhouse.sinks.clickhouse.ServerCapabilities;
import io.flowhouse.sinks.clickhouse.ShardKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * An {@link EnrichedFlow} to a row of {@code flowhouse.flows}: the flow as {@link FlowRowEncoder}
 * writes it, with {@code src_as}/{@code dst_as} as enrichment chose them, then the context columns
 * of migration V009 and the VRF names of V011.
 */
public final class EnrichedFlowRowEncoder implements ClickHouseRowEncoder<EnrichedFlow> {

    private static final long serialVersionUID = 1L;

    /** The context columns, in the order {@link #encode} writes them after the flow's. */
    public static final List<String> CONTEXT_COLUMNS = contextColumns();

    /** The VRF names of options data (V011), written after the context columns. */
    public static final List<String> VRF_NAME_COLUMNS = List.of("in_vrf_name", "out_vrf_name");

    /** Every column, in the order {@link #encode} writes them. */
    public static final List<String> COLUMNS =
            concat(concat(FlowRowEncoder.COLUMNS, CONTEXT_COLUMNS), VRF_NAME_COLUMNS);

    @Override
    public String table() {
        return "flows";
    }

    @Override
    public List<String> columns(ServerCapabilities caps) {
        return COLUMNS;
    }

    /** By exporter, like every table of the job. */
    @Override
    public long shardKey(EnrichedFlow e) {
        return ShardKeys.exporter(e.flow().exporterAddress());
    }

    @Override
    public void encode(EnrichedFlow e, RowBinaryOutput out, ServerCapabilities caps) {
        FlowContext c = e.context();
        FlowRowEncoder.encode(e.flow(), c.srcAs(), c.dstAs(), out, caps);
        attributes(c.exporter(), out);
        iface(c.in(), out);
        iface(c.out(), out);
        out.string(c.srcCountry());
        out.string(c.dstCountry());
        attributes(c.srcNetwork(), out);
        attributes(c.dstNetwork(), out);
        out.string(c.inVrfName());
        out.string(c.outVrfName());
    }

    private static void attributes(Attributes a, RowBinaryOutput out) {
        out.string(a.name());
        out.string(a.role());
        out.string(a.site());
        out.string(a.region());
        out.string(a.tenant());
    }

    private static void iface(InterfaceContext i, RowBinaryOutput out) {
        out.string(i.name());
        out.string(i.description());
        out.uint64(i.speedMbps());
        out.string(i.boundary().word());
        out.string(i.provider());
        out.string(i.connectivity());
    }

    private static List<String> contextColumns() {
        List<String> c = new ArrayList<>();
        for (String a : List.of("name", "role", "site", "region", "tenant")) {
            c.add("exporter_" + a);
        }
        for (String d : List.of("in", "out")) {
            for (String f :
                    List.of(
                            "name",
                            "description",
                            "speed",
                            "boundary",
                            "provider",
                            "connectivity")) {
                c.add(d + "_if_" + f);
            }
        }
        c.add("src_country");
        c.add("dst_country");
        for (String d : List.of("src", "dst")) {
            for (String a : List.of("name", "role", "site", "region", "tenant")) {
                c.add(d + "_net_" + a);
            }
        }
        return List.copyOf(c);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }
}
