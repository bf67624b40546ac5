// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Renders the migration templates for one server: each {@code ${NAME}} placeholder becomes the
 * clause this server understands, so one set of migrations serves ClickHouse 18.16 and current
 * servers and the two schemas cannot drift apart.
 *
 * <table>
 *   <caption>Placeholders</caption>
 *   <tr><th>placeholder</th><th>18.16</th><th>modern</th></tr>
 *   <tr><td>{@code ${DB}}</td><td colspan="2">the configured database, {@code flowhouse}</td></tr>
 *   <tr><td>{@code ${IP}}</td><td>{@code FixedString(16)}</td><td>{@code IPv6}</td></tr>
 *   <tr><td>{@code ${TIME}}</td><td>{@code DateTime}</td><td>{@code DateTime64(3)}</td></tr>
 *   <tr><td>{@code ${LC_STRING}}</td><td>{@code String}</td><td>{@code LowCardinality(String)}</td></tr>
 *   <tr><td>{@code ${CODEC_TIME}}, {@code ${CODEC_COUNTER}}, {@code ${CODEC_ADDR}}, {@code ${CODEC_ID}}</td>
 *       <td>empty</td><td>{@code CODEC(DoubleDelta, LZ4)}, {@code CODEC(T64, LZ4)},
 *       {@code CODEC(ZSTD(1))}, {@code CODEC(ZSTD(1))}</td></tr>
 *   <tr><td>{@code ${TTL_<NAME>}}, one per {@link Ttl} the schema's owner declares</td><td>empty</td>
 *       <td>{@code TTL toDateTime(column) + INTERVAL days DAY} (empty for 0 days)</td></tr>
 *   <tr><td>{@code ${SETTINGS_FLOWS}}</td><td>{@code index_granularity = 8192}</td>
 *       <td>+ {@code ttl_only_drop_parts = 1, non_replicated_deduplication_window = N}</td></tr>
 *   <tr><td>{@code ${IP_TO_STRING(x)}}</td><td>{@code IPv6NumToString(x)}</td><td>{@code toString(x)}</td></tr>
 * </table>
 */
public final class SchemaDialect {

    private static final Pattern PLACEHOLDER =
            Pattern.compile("\\$\\{([A-Z_]+)(?:\\(([^)]*)\\))?}");

    /** How many recent insert blocks a modern non-replicated table remembers for deduplication. */
    public static final int DEDUPLICATION_WINDOW = 1000;

    private final String database;
    private final ServerCapabilities caps;
    private final Map<String, Ttl> ttls;

    /**
     * A retention clause the schema's owner declares: {@code ${TTL_<name>}} keeps rows {@code days}
     * days after {@code column}, on servers with TTL.
     *
     * @param column the time column
     * @param days days rows are kept (0: forever, the placeholder renders empty)
     */
    public record Ttl(String column, int days) implements Serializable {
        public Ttl {
            if (!column.matches("[A-Za-z_][A-Za-z0-9_]*") || days < 0) {
                throw new IllegalArgumentException(
                        "TTL on " + column + " of " + days + " days (expected: a column, >= 0)");
            }
        }
    }

    /** A dialect without TTL placeholders. */
    public SchemaDialect(String database, ServerCapabilities caps) {
        this(database, caps, Map.of());
    }

    /**
     * @param database the database the objects go in ({@code ${DB}})
     * @param ttls the {@code ${TTL_<NAME>}} placeholders, by name
     */
    public SchemaDialect(String database, ServerCapabilities caps, Map<String, Ttl> ttls) {
        if (!database.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException(
                    "database name " + database + " (expected: letters, digits, underscore)");
        }
        this.database = database;
        this.caps = caps;
        this.ttls = new TreeMap<>(ttls);
    }

    public ServerCapabilities capabilities() {
        return caps;
    }

    /** The placeholder values for this server (without the function-style ones). */
    public Map<String, String> values() {
        Map<String, String> v = new LinkedHashMap<>();
        v.put("DB", database);
        v.put("IP", caps.ipv6Type() ? "IPv6" : "FixedString(16)");
        v.put("TIME", caps.dateTime64() ? "DateTime64(3)" : "DateTime");
        v.put("LC_STRING", caps.lowCardinality() ? "LowCardinality(String)" : "String");
        v.put("CODEC_TIME", caps.codecs() ? " CODEC(DoubleDelta, LZ4)" : "");
        v.put("CODEC_COUNTER", caps.codecs() ? " CODEC(T64, LZ4)" : "");
        v.put("CODEC_ADDR", caps.codecs() ? " CODEC(ZSTD(1))" : "");
        v.put("CODEC_ID", caps.codecs() ? " CODEC(ZSTD(1))" : "");
        ttls.forEach((name, t) -> v.put("TTL_" + name, ttl(t.column(), t.days())));
        StringBuilder settings = new StringBuilder("index_granularity = 8192");
        if (caps.ttl()) {
            settings.append(", ttl_only_drop_parts = 1");
        }
        if (caps.nonReplicatedDeduplication()) {
            settings.append(", non_replicated_deduplication_window = ")
                    .append(DEDUPLICATION_WINDOW);
        }
        v.put("SETTINGS_FLOWS", settings.toString());
        return v;
    }

    private String ttl(String column, int days) {
        if (!caps.ttl() || days <= 0) {
            return "";
        }
        return "TTL toDateTime(" + column + ") + INTERVAL " + days + " DAY";
    }

    /** Replaces every placeholder; an unknown one is an error, never left in the SQL. */
    public String render(String template) {
        Map<String, String> values = values();
        Matcher m = PLACEHOLDER.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            String arg = m.group(2);
            String replacement;
            if ("IP_TO_STRING".equals(name) && arg != null) {
                replacement =
                        caps.ipv6Type() ? "toString(" + arg + ")" : "IPv6NumToString(" + arg + ")";
            } else if (arg == null && values.containsKey(name)) {
                replacement = values.get(name);
            } else {
                throw new IllegalArgumentException("unknown schema placeholder ${" + name + "}");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }
}
