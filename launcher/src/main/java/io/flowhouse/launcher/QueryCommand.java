// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.services.FlowhouseHome;
import io.flowhouse.services.Http;
import io.flowhouse.services.ServicesConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code ./flowhouse query "SQL"}: runs SQL on the ClickHouse that {@code ./flowhouse services}
 * runs, over its HTTP interface, and prints the answer.
 */
public final class QueryCommand implements Command {

    private static final Pattern HAS_FORMAT =
            Pattern.compile("(?is).*\\bFORMAT\\s+\\w+\\s*;?\\s*$");
    private static final Pattern RETURNS_ROWS =
            Pattern.compile("(?is)^\\s*(SELECT|WITH|SHOW|DESC|DESCRIBE|EXISTS)\\b.*");

    private final FlowhouseHome home;
    private final Map<String, String> env;
    private final InputStream stdin;

    public QueryCommand(FlowhouseHome home, Map<String, String> env, InputStream stdin) {
        this.home = home;
        this.env = env;
        this.stdin = stdin;
    }

    @Override
    public String name() {
        return "query";
    }

    @Override
    public String summary() {
        return "run SQL on the local ClickHouse and print the result";
    }

    static String help() {
        return """
                Usage: ./flowhouse query [--format FORMAT] [--database DB] [--url URL] "SQL" | -

                Runs SQL on the ClickHouse of ./flowhouse services (HTTP, the port of the last
                'services up', default http://127.0.0.1:8123) and prints the result. '-' reads
                the SQL from stdin.

                  --format FORMAT   output format appended to row-returning queries without a
                                    FORMAT clause: PrettyCompact on a terminal, else TabSeparated;
                                    e.g. TSVWithNames, CSVWithNames, JSONEachRow, Vertical
                  --database DB     default database (default: flowhouse if it exists, else default)
                  --url URL         another ClickHouse HTTP endpoint (FLOWHOUSE_CLICKHOUSE_URL)

                Example:
                  ./flowhouse query "SELECT count() FROM flowhouse.flows"
                """;
    }

    @Override
    public int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        Set<String> options = new HashSet<>(ServicesConfig.OPTIONS);
        options.addAll(Set.of("format", "database", "url"));
        CommandLine cl = CommandLine.parse(args, Set.of(), options);
        if (cl.helpRequested() || cl.positional().isEmpty()) {
            out.print(help());
            return cl.helpRequested() ? 0 : EXIT_USAGE;
        }
        String sql = String.join(" ", cl.positional());
        if (sql.equals("-")) {
            sql = new String(stdin.readAllBytes(), StandardCharsets.UTF_8);
        }
        sql = sql.strip();
        String format =
                cl.value("format")
                        .orElse(System.console() != null ? "PrettyCompact" : "TabSeparated");
        if (RETURNS_ROWS.matcher(sql).matches() && !HAS_FORMAT.matcher(sql).matches()) {
            while (sql.endsWith(";")) {
                sql = sql.substring(0, sql.length() - 1).strip();
            }
            sql = sql + " FORMAT " + format;
        }
        String url =
                cl.value("url")
                        .or(
                                () ->
                                        java.util.Optional.ofNullable(
                                                env.get("FLOWHOUSE_CLICKHOUSE_URL")))
                        .orElseGet(() -> cl.servicesConfig(home, env, true).clickhouseUrl());
        String database = cl.value("database").orElse(null);
        try {
            if (database == null) {
                Http.Response exists =
                        Http.post(
                                url + "/",
                                "SELECT count() FROM system.databases WHERE name = 'flowhouse'",
                                "text/plain",
                                Duration.ofSeconds(10));
                database =
                        exists.ok() && exists.body().trim().equals("1") ? "flowhouse" : "default";
            }
            Http.Response response =
                    Http.post(
                            url
                                    + "/?database="
                                    + java.net.URLEncoder.encode(database, StandardCharsets.UTF_8),
                            sql,
                            "text/plain; charset=utf-8",
                            Duration.ofMinutes(10));
            if (!response.ok()) {
                err.print("clickhouse (HTTP " + response.status() + "): " + response.body());
                return 1;
            }
            out.print(response.body());
            return 0;
        } catch (java.net.ConnectException e) {
            err.println(
                    "flowhouse query: no ClickHouse at "
                            + url
                            + " (start it with ./flowhouse services up)");
            return 1;
        } catch (IOException e) {
            err.println("flowhouse query: " + e.getMessage().toLowerCase(Locale.ROOT));
            return 1;
        }
    }
}
