// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
 * and on a replicated table the ALTER reaches the shard's other replicas through ZooKeeper anyway.
 * The migrations themselves are written once, for one server; both forms are rendered from them, so
 * ClickHouse 18.16 and current servers read the same text.
 *
 * <p>With several shards ({@link #sharded()}) every table {@code T} becomes {@code T_local} on each
 * shard (replicated among the shard's replicas) plus a {@code Distributed} table {@code T} over
 * them, so readers keep today's names. {@link #plan} gives the steps: a table's {@code CREATE}
 * makes both; an {@code ALTER} changes both (the local table once per shard, which replication
 * carries to the shard's replicas; the {@code Distributed} table on each server, since 18.16's DDL
 * queue refuses {@code ON CLUSTER} for a table that is not replicated on a cluster whose shards
 * are); {@code INSERT ... SELECT} runs once per shard on the local tables, so rows stay on their
 * shard; {@code RENAME} renames the local tables only (a {@code Distributed} table reads the local
 * table of its name, whichever that is now); {@code DROP} drops both. A table with an {@code
 * exporter} column gets {@link ShardKeys#EXPORTER_SQL} as its {@code Distributed} sharding key, the
 * key writers place rows by ({@link ClickHouseRowEncoder#shardKey}), so an insert through the
 * {@code Distributed} table (moving data in) lands where the writer puts its rows; a table without
 * one gets no sharding key, and an insert through it is refused. The tables every server needs
 * whole ({@link #GLOBAL_TABLES}: the migrations' ledger, AS names joined by views) are replicated
 * across the whole cluster instead (path {@code /clickhouse/tables/all/...}, replica {@code
 * {shard}_{replica}}).
 *
 * @param cluster the {@code remote_servers} entry, or empty: statements pass unchanged
 * @param sharded whether the cluster has several shards
 */
public record ClusterDdl(String cluster, boolean sharded) implements Serializable {

    private static final long serialVersionUID = 2L;

    /** Single-server DDL: nothing changes. */
    public static final ClusterDdl NONE = new ClusterDdl("");

    /** The suffix of a table's shard-local part. */
    public static final String LOCAL_SUFFIX = "_local";

    /** Tables every server holds whole in a sharded cluster (no local part, no Distributed). */
    public static final Set<String> GLOBAL_TABLES = Set.of("schema_migrations", "as_names");

    /** Where a step runs. */
    public enum Scope {
        /** Once, on any server (with {@code ON CLUSTER} when it must reach them all). */
        ONCE,
        /** Once on every shard, on one of its replicas (replication carries it to the others). */
        EACH_SHARD,
        /** On every server, one after the other. */
        EACH_SERVER
    }

    /**
     * One statement to run.
     *
     * @param sql the statement
     * @param scope where it runs
     */
    public record Step(String sql, Scope scope) implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    private static final Pattern OBJECT =
            Pattern.compile(
                    "^(\\s*(?:CREATE\\s+(?:TABLE|VIEW|MATERIALIZED\\s+VIEW|DATABASE)"
                            + "(?:\\s+IF\\s+NOT\\s+EXISTS)?"
                            + "|ALTER\\s+TABLE"
                            + "|DROP\\s+(?:TABLE|VIEW|DATABASE)(?:\\s+IF\\s+EXISTS)?)"
                            + "\\s+)([A-Za-z0-9_.`]+)",
                    Pattern.CASE_INSENSITIVE);

    private static final Pattern CREATE_TABLE = statement("CREATE TABLE");

    private static final Pattern ALTER_TABLE = statement("ALTER TABLE");

    private static final Pattern DROP_TABLE = statement("DROP TABLE");

    private static final Pattern INSERT = statement("INSERT INTO");

    private static final Pattern MODIFY_ORDER_BY =
            Pattern.compile("MODIFY\\s+ORDER\\s+BY", Pattern.CASE_INSENSITIVE);

    /** A trailing {@code , MODIFY ORDER BY (...)} clause of an ALTER. */
    private static final Pattern MODIFY_ORDER_BY_CLAUSE =
            Pattern.compile(",\\s*MODIFY\\s+ORDER\\s+BY\\s*\\(.*\\)\\s*;?\\s*$", Pattern.DOTALL);

    private static final Pattern RENAME = statement("RENAME TABLE");

    /** A qualified name {@code db.table} (after FROM, INTO, TO, RENAME TABLE, a comma). */
    private static final Pattern QUALIFIED =
            Pattern.compile("\\b([A-Za-z_][A-Za-z0-9_]*)\\.([A-Za-z_][A-Za-z0-9_]*)\\b");

    /** An {@code exporter} column in a CREATE's column list. */
    private static final Pattern EXPORTER_COLUMN = Pattern.compile("[(,]\\s*exporter\\s");

    private static final Pattern ENGINE =
            Pattern.compile(
                    "ENGINE\\s*=\\s*((?:Replacing|Summing|Aggregating|Collapsing"
                            + "|VersionedCollapsing)?MergeTree)(?:\\s*\\(([^)]*)\\))?");

    public ClusterDdl {
        if (!cluster.isEmpty() && !cluster.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException(
                    "cluster name " + cluster + " (expected: letters, digits, underscore)");
        }
        if (sharded && cluster.isEmpty()) {
            throw new IllegalArgumentException("several shards need a cluster name");
        }
    }

    /** One shard (or one server). */
    public ClusterDdl(String cluster) {
        this(cluster, false);
    }

    public boolean enabled() {
        return !cluster.isEmpty();
    }

    /**
     * The table writers insert into for {@code table} (unqualified): its local part with several
     * shards, else the table itself.
     */
    public String writeTable(String table) {
        return sharded && !GLOBAL_TABLES.contains(table) ? table + LOCAL_SUFFIX : table;
    }

    /** The statement as one shard's cluster runs it (unchanged without a cluster). */
    public String apply(String statement) {
        if (!enabled() || MODIFY_ORDER_BY.matcher(statement).find()) {
            return statement;
        }
        Matcher object = OBJECT.matcher(statement);
        if (object.find()) {
            String name = object.group(2);
            String rest = statement.substring(object.end());
            return onCluster(object.group(1), name, rest, "{shard}", "{replica}");
        }
        if (RENAME.matcher(statement).find()) {
            return statement.stripTrailing() + " ON CLUSTER " + cluster;
        }
        return statement;
    }

    /** The steps that apply {@code statement} here, in order. */
    public List<Step> plan(String statement) {
        if (!sharded) {
            String sql = apply(statement);
            return List.of(
                    new Step(
                            sql,
                            enabled() && MODIFY_ORDER_BY.matcher(sql).find()
                                    ? Scope.EACH_SHARD
                                    : Scope.ONCE));
        }
        Matcher object = OBJECT.matcher(statement);
        if (object.find()) {
            String db = database(object.group(2));
            String table = table(object.group(2));
            String head = object.group(1);
            String rest = statement.substring(object.end());
            boolean local = db != null && !GLOBAL_TABLES.contains(table);
            if (CREATE_TABLE.matcher(statement).find()) {
                if (db != null && GLOBAL_TABLES.contains(table)) {
                    return List.of(
                            new Step(
                                    onCluster(
                                            head,
                                            object.group(2),
                                            rest,
                                            "all",
                                            "{shard}_{replica}"),
                                    Scope.ONCE));
                }
                if (!local || !ENGINE.matcher(rest).find()) {
                    return List.of(new Step(apply(statement), Scope.ONCE));
                }
                String localName = db + "." + table + LOCAL_SUFFIX;
                return List.of(
                        new Step(
                                onCluster(head, localName, rest, "{shard}", "{replica}"),
                                Scope.ONCE),
                        new Step(
                                head
                                        + object.group(2)
                                        + onCluster()
                                        + " AS "
                                        + localName
                                        + " ENGINE = Distributed("
                                        + cluster
                                        + ", "
                                        + db
                                        + ", "
                                        + table
                                        + LOCAL_SUFFIX
                                        + (EXPORTER_COLUMN.matcher(rest).find()
                                                ? ", " + ShardKeys.EXPORTER_SQL
                                                : "")
                                        + ")",
                                Scope.ONCE));
            }
            if (ALTER_TABLE.matcher(statement).find() && local) {
                String localName = db + "." + table + LOCAL_SUFFIX;
                List<Step> steps = new ArrayList<>();
                if (MODIFY_ORDER_BY.matcher(rest).find()) {
                    // 18.16's DDL queue refuses it: once per shard, replicated to its replicas.
                    steps.add(new Step(head + localName + rest, Scope.EACH_SHARD));
                    Matcher clause = MODIFY_ORDER_BY_CLAUSE.matcher(rest);
                    if (clause.find() && !rest.substring(0, clause.start()).isBlank()) {
                        steps.add(
                                new Step(
                                        head + object.group(2) + rest.substring(0, clause.start()),
                                        Scope.EACH_SERVER));
                    }
                    return steps;
                }
                // Once per shard, carried to its replicas by replication: through the DDL queue
                // 18.16 hung now and then on such an ALTER (one replica never finished the task).
                steps.add(new Step(head + localName + rest, Scope.EACH_SHARD));
                // 18.16's DDL queue refuses an ALTER ON CLUSTER of a table that is not replicated
                // when the shards are ("Table ... isn't replicated, but shard #1 is replicated").
                steps.add(new Step(head + object.group(2) + rest, Scope.EACH_SERVER));
                return steps;
            }
            if (DROP_TABLE.matcher(statement).find() && local) {
                return List.of(
                        new Step(head + object.group(2) + onCluster() + rest, Scope.ONCE),
                        new Step(
                                "DROP TABLE IF EXISTS "
                                        + db
                                        + "."
                                        + table
                                        + LOCAL_SUFFIX
                                        + onCluster()
                                        + rest,
                                Scope.ONCE));
            }
            return List.of(new Step(apply(statement), Scope.ONCE));
        }
        if (RENAME.matcher(statement).find()) {
            return List.of(
                    new Step(localNames(statement).stripTrailing() + onCluster(), Scope.ONCE));
        }
        if (INSERT.matcher(statement).find()) {
            return List.of(new Step(localNames(statement), Scope.EACH_SHARD));
        }
        return List.of(new Step(statement, Scope.ONCE));
    }

    private String onCluster() {
        return " ON CLUSTER " + cluster;
    }

    /**
     * {@code head name ON CLUSTER ... rest}, a MergeTree engine in {@code rest} made replicated
     * under {@code /clickhouse/tables/<shard>/<name>} as {@code replica}.
     */
    private String onCluster(String head, String name, String rest, String shard, String replica) {
        return head + name + onCluster() + replicated(name, rest, shard, replica);
    }

    /** A statement that starts with these words (any case, any white space between). */
    private static Pattern statement(String words) {
        return Pattern.compile(
                "^\\s*" + words.replace(" ", "\\s+") + "\\s", Pattern.CASE_INSENSITIVE);
    }

    /** Every qualified non-global table name in its local form. */
    private static String localNames(String statement) {
        Matcher m = QUALIFIED.matcher(statement);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String table = m.group(2);
            String replacement =
                    GLOBAL_TABLES.contains(table)
                            ? m.group()
                            : m.group(1) + "." + table + LOCAL_SUFFIX;
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String database(String qualified) {
        String name = qualified.replace("`", "");
        int dot = name.indexOf('.');
        return dot < 0 ? null : name.substring(0, dot);
    }

    private static String table(String qualified) {
        String name = qualified.replace("`", "");
        return name.substring(name.indexOf('.') + 1);
    }

    private static String replicated(String table, String rest, String shard, String replica) {
        Matcher engine = ENGINE.matcher(rest);
        if (!engine.find()) {
            return rest;
        }
        String path =
                "'/clickhouse/tables/"
                        + shard
                        + "/"
                        + table.replace("`", "")
                        + "', '"
                        + replica
                        + "'";
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
