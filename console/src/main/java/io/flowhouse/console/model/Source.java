// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.model;

/**
 * Where a query reads: the raw {@code flows} table, or the rows of one kind of a rollup table
 * ({@code flows_1m}, {@code flows_1h}, see flink-jobs/README-rollups.md). Each rollup source is a
 * kind plus, for interfaces, one direction: a flow contributes exactly once to each of the
 * non-ranked sources, so any of them gives totals; the ranked ones hold only each window's top N
 * (per exporter) with a Space-Saving error bound.
 */
public enum Source {
    RAW(null, "", false, ""),
    INTERFACE_IN("interface", " AND direction = 0", false, Tables.PLAIN),
    INTERFACE_OUT("interface", " AND direction = 1", false, Tables.PLAIN),
    PROTO_PORT("proto_port", "", false, Tables.PLAIN),
    AS_PAIR("as_pair", "", false, Tables.PLAIN),
    TOP_TALKER("top_talker", "", true, Tables.PLAIN),
    TOP_CONVERSATION("top_conversation", "", true, Tables.PLAIN),
    /** Context rollups (enrichment on): the in interface with its name and boundary. */
    CONTEXT_INTERFACE_IN("interface", " AND direction = 0", false, Tables.CONTEXT),
    CONTEXT_INTERFACE_OUT("interface", " AND direction = 1", false, Tables.CONTEXT),
    COUNTRY_PAIR("country_pair", "", false, Tables.CONTEXT),
    BOUNDARY_AS("boundary_as", "", false, Tables.CONTEXT);

    private final String kind;
    private final String condition;
    private final boolean ranked;
    private final String tablePrefix;

    Source(String kind, String condition, boolean ranked, String tablePrefix) {
        this.kind = kind;
        this.condition = condition;
        this.ranked = ranked;
        this.tablePrefix = tablePrefix;
    }

    /**
     * The rollup tables of this source, before the resolution: {@code flows_} or, for the context
     * rollups the job writes while enrichment is on, {@code flows_context_}.
     */
    public String tablePrefix() {
        return tablePrefix;
    }

    /** The rollup {@code kind} value (a constant of the table's Enum8), null for raw. */
    public String kind() {
        return kind;
    }

    /** SQL that selects this source's rows of a rollup table (constant text). */
    public String rowCondition() {
        return "kind = '" + kind + "'" + condition;
    }

    /** Rows are a per-window top N with {@code bytes_error}: not totals. */
    public boolean ranked() {
        return ranked;
    }

    public boolean isRaw() {
        return this == RAW;
    }

    /** Table name prefixes (constants: an enum's constructor cannot read its own statics). */
    private static final class Tables {
        static final String PLAIN = "flows_";
        static final String CONTEXT = "flows_context_";
    }
}
