// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.jobs.config.JobKeys;
import io.flowhouse.services.Http;
import io.flowhouse.services.LocalPorts;
import io.flowhouse.services.ServiceKind;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesManager;
import io.flowhouse.services.clickhouse.ClickHousePassword;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./flowhouse query "SQL"}: runs SQL on the ClickHouse that {@code ./flowhouse services}
 * runs, over its HTTP interface, and prints the answer.
 */
@Command(
        name = "query",
        mixinStandardHelpOptions = true,
        description = {
            "run SQL on the local ClickHouse and print the result",
            "",
            "Runs SQL on the ClickHouse of ./flowhouse services (HTTP, the port of the last",
            "'services up', default http://127.0.0.1:8123, as user default with the password",
            "in .flowhouse/clickhouse.password) and prints the result. '-' reads the SQL from",
            "stdin. With --url: FLOWHOUSE_CLICKHOUSE_USER and FLOWHOUSE_CLICKHOUSE_PASSWORD.",
            ""
        },
        footer = {"", "Example:", "  ./flowhouse query \"SELECT count() FROM flowhouse.flows\""})
public final class QueryCommand implements Callable<Integer> {

    private static final Pattern HAS_FORMAT =
            Pattern.compile("(?is).*\\bFORMAT\\s+\\w+\\s*;?\\s*$");
    private static final Pattern RETURNS_ROWS =
            Pattern.compile("(?is)^\\s*(SELECT|WITH|SHOW|DESC|DESCRIBE|EXISTS)\\b.*");

    private final LaunchContext ctx;

    @Mixin ServicesOptions services = new ServicesOptions();

    @Option(
            names = "--format",
            paramLabel = "FORMAT",
            description = {
                "output format appended to row-returning queries without a FORMAT clause:",
                "PrettyCompact on a terminal, else TabSeparated; e.g. TSVWithNames,",
                "CSVWithNames, JSONEachRow, Vertical"
            })
    String format;

    @Option(
            names = "--database",
            paramLabel = "DB",
            description = "default database (default: flowhouse if it exists, else default)")
    String database;

    @Option(
            names = "--url",
            paramLabel = "URL",
            description = "another ClickHouse HTTP endpoint (FLOWHOUSE_CLICKHOUSE_URL)")
    String url;

    @Parameters(arity = "1..*", paramLabel = "SQL", description = "the statement, or - for stdin")
    List<String> sqlWords = new ArrayList<>();

    QueryCommand(LaunchContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public Integer call() throws Exception {
        PrintStream out = ctx.out();
        PrintStream err = ctx.err();
        Map<String, String> env = ctx.env();
        String sql = String.join(" ", sqlWords);
        if (sql.equals("-")) {
            sql = new String(ctx.stdin().readAllBytes(), StandardCharsets.UTF_8);
        }
        sql = sql.strip();
        String format =
                this.format != null
                        ? this.format
                        : System.console() != null ? "PrettyCompact" : "TabSeparated";
        if (RETURNS_ROWS.matcher(sql).matches() && !HAS_FORMAT.matcher(sql).matches()) {
            while (sql.endsWith(";")) {
                sql = sql.substring(0, sql.length() - 1).strip();
            }
            sql = sql + " FORMAT " + format;
        }
        String url = this.url;
        if (url == null) {
            // The job's variable for the same endpoint.
            url = env.get(JobKeys.SCHEMA.envName(JobKeys.CLICKHOUSE_URL));
            url = url == null || url.isBlank() ? null : url;
        }
        Map<String, String> auth;
        if (url == null) {
            ServicesConfig config = services.config(ctx, true);
            url = config.clickhouseUrl();
            requireOurClickHouse(config);
            auth = ClickHousePassword.headersFor(config.clickhousePasswordFile());
        } else {
            // Another server: its credentials from the environment, as the job takes them.
            String password = env.get("FLOWHOUSE_CLICKHOUSE_PASSWORD");
            auth =
                    password == null
                            ? Map.of()
                            : ClickHousePassword.basicAuth(
                                    env.getOrDefault("FLOWHOUSE_CLICKHOUSE_USER", "default"),
                                    password);
        }
        String database = this.database;
        try {
            if (database == null) {
                Http.Response exists =
                        Http.post(
                                url + "/",
                                "SELECT count() FROM system.databases WHERE name = 'flowhouse'",
                                "text/plain",
                                Duration.ofSeconds(10),
                                auth);
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
                            Duration.ofMinutes(10),
                            auth);
            if (!response.ok()) {
                err.print("clickhouse (HTTP " + response.status() + "): " + response.body());
                return ExitCode.FAILURE;
            }
            out.print(response.body());
            return ExitCode.OK;
        } catch (java.net.ConnectException e) {
            err.println(
                    "flowhouse query: no ClickHouse at "
                            + url
                            + " (start it with ./flowhouse services up)");
            return ExitCode.FAILURE;
        } catch (IOException e) {
            err.println("flowhouse query: " + e.getMessage().toLowerCase(Locale.ROOT));
            return ExitCode.FAILURE;
        }
    }

    /**
     * The local password goes only to the ClickHouse that {@code ./flowhouse services} started: the
     * saved port may have been taken by another process since.
     */
    private static void requireOurClickHouse(ServicesConfig config) {
        int port = config.clickhouseHttpPort();
        java.util.OptionalLong pid = new ServicesManager(config).pid(ServiceKind.CLICKHOUSE);
        if (pid.isEmpty()
                || ProcessHandle.of(pid.getAsLong())
                        .map(p -> !LocalPorts.tcpListenerOwnedBy(p, port))
                        .orElse(true)) {
            throw new UsageError(
                    "the ClickHouse of ./flowhouse services is not running, or port "
                            + port
                            + " is held by another process: the local password is not sent there"
                            + " ('./flowhouse services up' starts it; --url with"
                            + " FLOWHOUSE_CLICKHOUSE_PASSWORD queries another server)");
        }
    }
}
