// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.model;

import static io.flowhouse.console.model.Source.AS_PAIR;
import static io.flowhouse.console.model.Source.BOUNDARY_AS;
import static io.flowhouse.console.model.Source.CONTEXT_INTERFACE_IN;
import static io.flowhouse.console.model.Source.CONTEXT_INTERFACE_OUT;
import static io.flowhouse.console.model.Source.COUNTRY_PAIR;
import static io.flowhouse.console.model.Source.INTERFACE_IN;
import static io.flowhouse.console.model.Source.INTERFACE_OUT;
import static io.flowhouse.console.model.Source.PROTO_PORT;
import static io.flowhouse.console.model.Source.TOP_CONVERSATION;
import static io.flowhouse.console.model.Source.TOP_TALKER;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The field table of the filter language and the dimension list, declared once: every name a filter
 * or a group-by may use, with its SQL per source. A field declared here is filterable at once and
 * is a dimension of its own (keyed with its {@link Field#groupWith} fields); {@link #COMPOSITE}
 * adds the dimensions of several fields. The enrichment fields (interface names and boundaries,
 * countries) read the raw table's context columns and the context rollups.
 */
public final class Fields {

    /** IANA protocol numbers the filter knows by name. */
    public static final Map<String, Long> PROTOCOLS =
            Map.of(
                    "icmp", 1L, "igmp", 2L, "tcp", 6L, "udp", 17L, "gre", 47L, "esp", 50L, "ah",
                    51L, "icmpv6", 58L, "sctp", 132L);

    /**
     * The service port the rollups key protocol/port rows by (the job's {@code
     * FlowSplitter.servicePort}): ICMP type*256+code as exported, else the lower of the two ports
     * (a port of 0 does not count).
     */
    static final String RAW_SERVICE_PORT =
            "multiIf(proto IN (1, 58), dst_port, src_port = 0, dst_port, dst_port = 0, src_port,"
                    + " least(src_port, dst_port))";

    /**
     * Interface boundaries as the context rollups store them; the raw table holds the enrich
     * stage's words ('' when undefined).
     */
    static final Map<String, Long> BOUNDARIES =
            Map.of("undefined", 0L, "external", 1L, "internal", 2L);

    private static String rawBoundary(String column) {
        return "multiIf(" + column + " = 'external', 1, " + column + " = 'internal', 2, 0)";
    }

    private static final List<Field> FIELDS =
            List.of(
                    Field.of("Exporter", "exporter", FieldType.ADDRESS)
                            .raw("exporter")
                            .rollup(
                                    "exporter",
                                    INTERFACE_IN,
                                    INTERFACE_OUT,
                                    PROTO_PORT,
                                    AS_PAIR,
                                    TOP_TALKER,
                                    TOP_CONVERSATION,
                                    CONTEXT_INTERFACE_IN,
                                    CONTEXT_INTERFACE_OUT,
                                    COUNTRY_PAIR,
                                    BOUNDARY_AS)
                            .build(),
                    Field.of("InIf", "in interface", FieldType.INTEGER)
                            .range(0, 0xFFFF_FFFFL)
                            .raw("in_if")
                            .rollup("interface", INTERFACE_IN, CONTEXT_INTERFACE_IN, BOUNDARY_AS)
                            .groupWith("Exporter")
                            .build(),
                    Field.of("OutIf", "out interface", FieldType.INTEGER)
                            .range(0, 0xFFFF_FFFFL)
                            .raw("out_if")
                            .rollup("interface", INTERFACE_OUT, CONTEXT_INTERFACE_OUT)
                            .groupWith("Exporter")
                            .build(),
                    Field.of("Proto", "protocol", FieldType.INTEGER)
                            .range(0, 255)
                            .words(PROTOCOLS)
                            .raw("proto")
                            .rollup("proto", PROTO_PORT, BOUNDARY_AS)
                            .build(),
                    Field.of("Port", "service port", FieldType.INTEGER)
                            .range(0, 65_535)
                            .raw(RAW_SERVICE_PORT)
                            .rollup("port", PROTO_PORT)
                            .build(),
                    Field.of("SrcPort", "source port", FieldType.INTEGER)
                            .range(0, 65_535)
                            .raw("src_port")
                            .build(),
                    Field.of("DstPort", "destination port", FieldType.INTEGER)
                            .range(0, 65_535)
                            .raw("dst_port")
                            .build(),
                    Field.of("SrcAS", "source AS", FieldType.INTEGER)
                            .range(0, 0xFFFF_FFFFL)
                            .raw("src_as")
                            .rollup("src_as", AS_PAIR, BOUNDARY_AS)
                            .build(),
                    Field.of("DstAS", "destination AS", FieldType.INTEGER)
                            .range(0, 0xFFFF_FFFFL)
                            .raw("dst_as")
                            .rollup("dst_as", AS_PAIR, BOUNDARY_AS)
                            .build(),
                    Field.of("SrcAddr", "source address", FieldType.ADDRESS)
                            .raw("src_addr")
                            .rollup("src_addr", TOP_TALKER, TOP_CONVERSATION)
                            .build(),
                    Field.of("DstAddr", "destination address", FieldType.ADDRESS)
                            .raw("dst_addr")
                            .rollup("dst_addr", TOP_CONVERSATION)
                            .build(),
                    Field.of("Direction", "flow direction", FieldType.INTEGER)
                            .range(-1, 1)
                            .words(Map.of("ingress", 0L, "egress", 1L, "unknown", -1L))
                            .raw("direction")
                            .build(),
                    Field.of("Version", "export version", FieldType.INTEGER)
                            .range(0, 10)
                            .words(Map.of("packets", 0L, "v5", 5L, "v9", 9L, "ipfix", 10L))
                            .raw("version")
                            .build(),
                    Field.of("Vlan", "VLAN", FieldType.INTEGER).range(0, 4095).raw("vlan").build(),
                    Field.of("InIfName", "in interface name", FieldType.STRING)
                            .raw("in_if_name")
                            .rollup("if_name", CONTEXT_INTERFACE_IN)
                            .groupWith("Exporter")
                            .build(),
                    Field.of("OutIfName", "out interface name", FieldType.STRING)
                            .raw("out_if_name")
                            .rollup("if_name", CONTEXT_INTERFACE_OUT)
                            .groupWith("Exporter")
                            .build(),
                    Field.of("InIfBoundary", "in boundary", FieldType.INTEGER)
                            .range(0, 2)
                            .words(BOUNDARIES)
                            .raw(rawBoundary("in_if_boundary"))
                            .rollup("in_boundary", CONTEXT_INTERFACE_IN, BOUNDARY_AS)
                            .build(),
                    Field.of("OutIfBoundary", "out boundary", FieldType.INTEGER)
                            .range(0, 2)
                            .words(BOUNDARIES)
                            .raw(rawBoundary("out_if_boundary"))
                            .rollup("out_boundary", CONTEXT_INTERFACE_OUT, BOUNDARY_AS)
                            .build(),
                    Field.of("SrcCountry", "source country", FieldType.STRING)
                            .raw("src_country")
                            .rollup("src_country", COUNTRY_PAIR)
                            .build(),
                    Field.of("DstCountry", "destination country", FieldType.STRING)
                            .raw("dst_country")
                            .rollup("dst_country", COUNTRY_PAIR)
                            .build());

    /** Dimensions of several fields: {@code name, label, fields...}. */
    private static final List<String[]> COMPOSITE =
            List.of(
                    new String[] {"Service", "protocol/port", "Proto", "Port"},
                    new String[] {"Conversation", "conversation", "SrcAddr", "DstAddr"},
                    new String[] {"ASPair", "AS pair", "SrcAS", "DstAS"},
                    new String[] {"CountryPair", "country pair", "SrcCountry", "DstCountry"});

    private static final Fields DEFAULT = new Fields(FIELDS, COMPOSITE);

    private final Map<String, Field> fields = new LinkedHashMap<>();
    private final Map<String, Dimension> dimensions = new LinkedHashMap<>();

    /** A field table; {@link #standard()} is the one the console serves. */
    public Fields(List<Field> declared, List<String[]> composite) {
        for (Field f : declared) {
            if (fields.put(key(f.name()), f) != null) {
                throw new IllegalArgumentException("field " + f.name() + " declared twice");
            }
            List<Field> keyFields = new ArrayList<>();
            for (String other : f.groupWith()) {
                keyFields.add(require(other));
            }
            keyFields.add(f);
            dimensions.put(key(f.name()), new Dimension(f.name(), f.label(), keyFields));
        }
        for (String[] c : composite) {
            List<Field> keyFields = new ArrayList<>();
            for (int i = 2; i < c.length; i++) {
                keyFields.add(require(c[i]));
            }
            if (dimensions.put(key(c[0]), new Dimension(c[0], c[1], keyFields)) != null) {
                throw new IllegalArgumentException("dimension " + c[0] + " declared twice");
            }
        }
    }

    /** The console's fields and dimensions. */
    public static Fields standard() {
        return DEFAULT;
    }

    public Optional<Field> field(String name) {
        return Optional.ofNullable(fields.get(key(name)));
    }

    public Optional<Dimension> dimension(String name) {
        return Optional.ofNullable(dimensions.get(key(name)));
    }

    public List<Field> fields() {
        return List.copyOf(fields.values());
    }

    public List<Dimension> dimensions() {
        return List.copyOf(dimensions.values());
    }

    private Field require(String name) {
        Field f = fields.get(key(name));
        if (f == null) {
            throw new IllegalArgumentException("field " + name + " is not declared (yet)");
        }
        return f;
    }

    private static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
