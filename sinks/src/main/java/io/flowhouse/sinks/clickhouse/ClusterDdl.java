// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.Serializable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns a single-server DDL statement into its form for a replicated ClickHouse cluster: {@code ON
 * CLUSTER name} after the object's name (the server's distributed DDL queue runs it on every
 * replica, so a replica that was down applies it when it is back), and every {@code *MergeTree}
 * engine in its {@code Replicated*MergeTree} form, with the ZooKeeper path {@code
 * /clickhouse/tables/{shard}/DB.TABLE} and the replica name from the server's {@code {replica}}
 * macro. Inserts and queries pass unchanged: an insert into a replicated table reaches the other
 * replicas through replication. An {@code ALTER} with {@code MODIFY ORDER BY} also runs without
 * {@code ON CLUSTER}: ClickHouse 18.16's DDL queue refuses it ("Unsupported type of ALTER query"),
 * and on a replicated table the ALTER reaches the shard's other replicas through ZooKeeper anyway
 * (with several shards, such a migration has to run once per shard). The migrations themselves are
 * written once, for one server; both forms are rendered from them, so ClickHouse 18.16 and current
 * servers read the same text.
 *
 * @param cluster the {@code remote_servers} entry, or empty: statements pass unchanged
 */
public record ClusterDdl(String cluster) implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Single-server DDL: nothing changes. */
    public static final ClusterDdl NONE = new ClusterDdl("");

    private static final Pattern OBJECT =
            Pattern.compile(
                    "^(\\s*(?:CREATE\\s+(?:TABLE|VIEW|MATERIALIZED\\s+VIEW|DATABASE)"
                            + "(?:\\s+IF\\s+NOT\\s+EXISTS)?"
                            + "|ALTER\\s+TABLE"
                            + "|DROP\\s+(?:TABLE|VIEW|DATABASE)(?:\\s+IF\\s+EXISTS)?)"
                            + "\\s+)([A-Za-z0-9_.`]+)",
                    Pattern.CASE_INSENSITIVE);

    private static final Pattern MODIFY_ORDER_BY =
            Pattern.compile("MODIFY\\s+ORDER\\s+BY", Pattern.CASE_INSENSITIVE);

    private static final Pattern RENAME =
            Pattern.compile("^\\s*RENAME\\s+TABLE\\s", Pattern.CASE_INSENSITIVE);

    private static final Pattern ENGINE =
            Pattern.compile(
                    "ENGINE\\s*=\\s*((?:Replacing|Summing|Aggregating|Collapsing"
                            + "|VersionedCollapsing)?MergeTree)(?:\\s*\\(([^)]*)\\))?");

    public ClusterDdl {
        if (!cluster.isEmpty() && !cluster.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException(
                    "cluster name " + cluster + " (expected: letters, digits, underscore)");
        }
    }

    public boolean enabled() {
        return !cluster.isEmpty();
    }

    /** The statement as the cluster runs it (unchanged without a cluster). */
    public String apply(String statement) {
        if (!enabled() || MODIFY_ORDER_BY.matcher(statement).find()) {
            return statement;
        }
        Matcher object = OBJECT.matcher(statement);
        if (object.find()) {
            String name = object.group(2);
            String rest = statement.substring(object.end());
            return object.group(1) + name + " ON CLUSTER " + cluster + replicated(name, rest);
        }
        if (RENAME.matcher(statement).find()) {
            return statement.stripTrailing() + " ON CLUSTER " + cluster;
        }
        return statement;
    }

    private static String replicated(String table, String rest) {
        Matcher engine = ENGINE.matcher(rest);
        if (!engine.find()) {
            return rest;
        }
        String path = "'/clickhouse/tables/{shard}/" + table.replace("`", "") + "', '{replica}'";
        String args = engine.group(2) == null ? "" : engine.group(2).strip();
        String replacement =
                "ENGINE = Replicated"
                        + engine.group(1)
                        + "("
                        + path
                        + (args.isEmpty() ? "" : ", " + args)
                        + ")";
        return rest.substring(0, engine.start()) + replacement + rest.substring(engine.end());
    }
}
