// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.flowhouse.console.config.ConsoleConfig;
import io.flowhouse.console.filter.Filter;
import io.flowhouse.console.filter.FilterException;
import io.flowhouse.console.filter.FilterParser;
import io.flowhouse.console.kafka.RejectedTopic;
import io.flowhouse.console.model.Dimension;
import io.flowhouse.console.model.Field;
import io.flowhouse.console.model.Fields;
import io.flowhouse.console.model.Source;
import io.flowhouse.console.query.ClickHouseReader;
import io.flowhouse.console.query.Durations;
import io.flowhouse.console.query.ExportersView;
import io.flowhouse.console.query.Planner;
import io.flowhouse.console.query.QueryException;
import io.flowhouse.console.query.QueryLog;
import io.flowhouse.console.query.ViewRequest;
import io.flowhouse.console.query.Views;
import io.flowhouse.console.sql.SqlLiteral.AddressForm;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP server (the JDK's own): the page and its scripts, Apache ECharts from its
 * WebJar, and the JSON API ({@code /api/...}, README). GET only; every request authenticates when
 * auth is configured; errors are JSON with a status: 400 for a bad request or filter (never sent to
 * ClickHouse), 422 when a view hits the console's query limits, 502/504 for ClickHouse.
 */
public final class ConsoleServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int MAX_QUERY_STRING = 16_384;
    static final String ECHARTS = "META-INF/resources/webjars/echarts/5.3.1/dist/echarts.min.js";
    private static final String WEB = "io/flowhouse/console/web/";

    private final ConsoleConfig config;
    private final Fields fields;
    private final FilterParser parser;
    private final ClickHouseReader clickhouse;
    private final Planner planner;
    private final RejectedTopic rejected;
    private final ConsoleMetrics metrics = new ConsoleMetrics();
    private final HttpServer http;
    private final ExecutorService executor;
    private volatile AddressForm addressForm;

    private ConsoleServer(ConsoleConfig config, Supplier<String> password) throws IOException {
        this.config = config;
        this.fields = Fields.standard();
        this.parser = new FilterParser(fields, config.filterLimits());
        this.clickhouse =
                new ClickHouseReader(
                        config.clickhouse().url(),
                        config.clickhouse().database(),
                        config.clickhouse().user(),
                        password,
                        config.clickhouse().timeout().plusSeconds(5));
        this.planner = new Planner(config.limits());
        this.rejected =
                config.kafka().bootstrap().isBlank()
                        ? null
                        : new RejectedTopic(
                                config.kafka().bootstrap(),
                                config.kafka().topic(),
                                config.kafka().maxRecords(),
                                config.kafka().maxTime());
        this.http = HttpServer.create(new InetSocketAddress(config.host(), config.port()), 64);
        this.executor =
                Executors.newFixedThreadPool(
                        config.threads(),
                        r -> {
                            Thread t = new Thread(r, "flowhouse-console-http");
                            t.setDaemon(true);
                            return t;
                        });
        http.setExecutor(executor);
        http.createContext("/", this::handle);
    }

    /** Binds and starts serving. */
    public static ConsoleServer start(ConsoleConfig config, Supplier<String> password)
            throws IOException {
        ConsoleServer s = new ConsoleServer(config, password);
        s.http.start();
        LOG.info("console on {}", s.url());
        return s;
    }

    /** {@code http://HOST:PORT/}. */
    public String url() {
        InetSocketAddress a = http.getAddress();
        String host = a.getAddress().getHostAddress();
        if (host.contains(":")) {
            host = "[" + host + "]";
        }
        return "http://" + host + ":" + a.getPort() + "/";
    }

    public int port() {
        return http.getAddress().getPort();
    }

    public ConsoleMetrics metrics() {
        return metrics;
    }

    @Override
    public void close() {
        http.stop(0);
        executor.shutdownNow();
    }

    private void handle(HttpExchange ex) throws IOException {
        String path = ex.getRequestURI().getRawPath();
        int status = 500;
        try {
            if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
                status = send(ex, 405, error("only GET"));
                return;
            }
            if (config.authRequired() && !authorized(ex)) {
                metrics.authFailures.incrementAndGet();
                ex.getResponseHeaders().set("WWW-Authenticate", "Basic realm=\"flowhouse\"");
                status = send(ex, 401, error("authentication required"));
                return;
            }
            status = route(ex, path);
        } catch (FilterException e) {
            metrics.filterRejected.incrementAndGet();
            ObjectNode err = error("bad filter: " + e.getMessage());
            err.put("position", e.position());
            status = send(ex, 400, err);
        } catch (QueryException e) {
            if (e.status() == 422) {
                metrics.limitHits.incrementAndGet();
            }
            status = send(ex, e.status(), error(e.getMessage()));
        } catch (RuntimeException e) {
            LOG.warn("console request {} failed", path, e);
            status = send(ex, 500, error("internal error: " + e));
        } finally {
            metrics.request(endpoint(path), status);
            ex.close();
        }
    }

    private int route(HttpExchange ex, String path) throws IOException {
        switch (path) {
            case "/", "/index.html" -> {
                return resource(ex, WEB + "index.html", "text/html; charset=utf-8");
            }
            case "/health" -> {
                return sendText(ex, 200, "ok\n", "text/plain");
            }
            case "/metrics" -> {
                return sendText(
                        ex, 200, metrics.text(), "text/plain; version=0.0.4; charset=utf-8");
            }
            case "/vendor/echarts.min.js" -> {
                return resource(ex, ECHARTS, "text/javascript; charset=utf-8");
            }
            case "/static/app.js" -> {
                return resource(ex, WEB + "app.js", "text/javascript; charset=utf-8");
            }
            case "/static/app.css" -> {
                return resource(ex, WEB + "app.css", "text/css; charset=utf-8");
            }
            case "/api/fields" -> {
                return send(ex, 200, fieldsJson());
            }
            case "/api/filter" -> {
                Map<String, String> p = params(ex);
                Filter f = parser.parse(p.getOrDefault("filter", ""));
                ObjectNode out = JSON.createObjectNode();
                out.put("ok", true);
                out.set("fields", JSON.valueToTree(f.fieldNames()));
                return send(ex, 200, out);
            }
            default -> {
                if (path.startsWith("/api/")) {
                    return api(ex, path.substring(5));
                }
                return send(ex, 404, error("not found"));
            }
        }
    }

    private int api(HttpExchange ex, String view) throws IOException {
        Map<String, String> p = params(ex);
        long now = System.currentTimeMillis() / 1000;
        QueryLog log = new QueryLog();
        AddressForm form = addressForm(log);
        ObjectNode out;
        switch (view) {
            case "traffic" -> {
                ViewRequest r = ViewRequest.parse(p, fields, parser, config.limits(), 1, 1, now);
                out = new Views(clickhouse, planner, form).traffic(r, log);
            }
            case "top" -> {
                ViewRequest r = ViewRequest.parse(p, fields, parser, config.limits(), 1, 1, now);
                out = new Views(clickhouse, planner, form).top(r, log);
            }
            case "sankey" -> {
                ViewRequest r = ViewRequest.parse(p, fields, parser, config.limits(), 2, 3, now);
                out = new Views(clickhouse, planner, form).sankey(r, log);
            }
            case "exporters" -> {
                ViewRequest r = ViewRequest.parse(p, fields, parser, config.limits(), 1, 1, now);
                out =
                        new ExportersView(clickhouse, config.limits(), form, rejected)
                                .exporters(r, log);
            }
            default -> {
                return send(ex, 404, error("no API " + view));
            }
        }
        metrics.queries.addAndGet(log.entries().size());
        metrics.rowsRead.addAndGet(log.rowsRead());
        return send(ex, 200, out);
    }

    /** The servers' address column form, probed once from the job's table (18.16: FixedString). */
    private AddressForm addressForm(QueryLog log) {
        AddressForm f = addressForm;
        if (f != null) {
            return f;
        }
        ClickHouseReader.Result r =
                clickhouse.query(
                        "SELECT type FROM system.columns WHERE database = currentDatabase() AND"
                                + " table = 'flows' AND name = 'src_addr'",
                        log);
        if (r.rows().isEmpty()) {
            throw new QueryException(
                    503,
                    "no table "
                            + config.clickhouse().database()
                            + ".flows yet: start the pipeline job first (it creates its tables)",
                    -1);
        }
        f =
                r.rows().get(0).get(0).asText().startsWith("IPv6")
                        ? AddressForm.IPV6
                        : AddressForm.FIXED_STRING;
        addressForm = f;
        return f;
    }

    private ObjectNode fieldsJson() {
        ObjectNode out = JSON.createObjectNode();
        ArrayNode fs = out.putArray("fields");
        for (Field f : fields.fields()) {
            ObjectNode o = fs.addObject();
            o.put("name", f.name());
            o.put("label", f.label());
            o.put("type", f.type().name().toLowerCase(Locale.ROOT));
            if (!f.words().isEmpty()) {
                o.set("words", JSON.valueToTree(new java.util.TreeMap<>(f.words())));
            }
            ArrayNode sources = o.putArray("rollups");
            for (Source s : Source.values()) {
                if (!s.isRaw() && f.availableIn(s)) {
                    sources.add(s.name().toLowerCase(Locale.ROOT));
                }
            }
        }
        ArrayNode ds = out.putArray("dimensions");
        for (Dimension d : fields.dimensions()) {
            ObjectNode o = ds.addObject();
            o.put("name", d.name());
            o.put("label", d.label());
            o.set("fields", JSON.valueToTree(d.fields().stream().map(Field::name).toList()));
            o.put(
                    "inRollups",
                    java.util.Arrays.stream(Source.values())
                            .anyMatch(s -> !s.isRaw() && d.availableIn(s)));
        }
        ObjectNode limits = out.putObject("limits");
        limits.set(
                "resolutions",
                JSON.valueToTree(
                        config.limits().resolutions().stream().map(Durations::text).toList()));
        limits.put("rawMaxRange", Durations.text(config.limits().rawMaxRange()));
        limits.put("maxRange", Durations.text(config.limits().maxRange()));
        limits.put("maxTopN", config.limits().maxTopN());
        limits.put("deadLetters", rejected != null);
        return out;
    }

    private boolean authorized(HttpExchange ex) {
        String h = ex.getRequestHeaders().getFirst("Authorization");
        if (h == null) {
            return false;
        }
        if (h.startsWith("Bearer ") && config.authToken() != null) {
            return same(h.substring(7).trim(), config.authToken());
        }
        if (h.startsWith("Basic ")) {
            String decoded;
            try {
                decoded =
                        new String(
                                Base64.getDecoder().decode(h.substring(6).trim()),
                                StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return false;
            }
            int colon = decoded.indexOf(':');
            if (colon < 0) {
                return false;
            }
            String user = decoded.substring(0, colon);
            String pass = decoded.substring(colon + 1);
            if (config.authToken() != null && same(pass, config.authToken())) {
                return true;
            }
            return config.authUser() != null
                    && same(user, config.authUser())
                    && same(pass, config.authPassword());
        }
        return false;
    }

    private static boolean same(String a, String b) {
        return MessageDigest.isEqual(
                a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /** The query parameters; a repeated or oversized one is a 400. */
    static Map<String, String> params(HttpExchange ex) {
        String raw = ex.getRequestURI().getRawQuery();
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        if (raw.length() > MAX_QUERY_STRING) {
            throw QueryException.bad("query string longer than " + MAX_QUERY_STRING + " bytes");
        }
        for (String pair : raw.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name;
            String value;
            try {
                name =
                        URLDecoder.decode(
                                eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                value =
                        eq < 0
                                ? ""
                                : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw QueryException.bad("malformed query string");
            }
            if (out.put(name, value) != null) {
                throw QueryException.bad("parameter '" + name + "' given twice");
            }
        }
        return out;
    }

    private static String endpoint(String path) {
        if (path.startsWith("/api/")) {
            String v = path.substring(5);
            return switch (v) {
                case "traffic", "top", "sankey", "exporters", "fields", "filter" -> "api/" + v;
                default -> "api/other";
            };
        }
        return switch (path) {
            case "/", "/index.html", "/health", "/metrics" -> path;
            default ->
                    path.startsWith("/static/") || path.startsWith("/vendor/") ? "static" : "other";
        };
    }

    private static ObjectNode error(String message) {
        ObjectNode o = JSON.createObjectNode();
        o.put("error", message);
        return o;
    }

    private static int send(HttpExchange ex, int status, JsonNode body) throws IOException {
        byte[] bytes = JSON.writeValueAsBytes(body);
        return sendBytes(ex, status, bytes, "application/json; charset=utf-8");
    }

    private static int sendText(HttpExchange ex, int status, String body, String type)
            throws IOException {
        return sendBytes(ex, status, body.getBytes(StandardCharsets.UTF_8), type);
    }

    private static int sendBytes(HttpExchange ex, int status, byte[] bytes, String type)
            throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        ex.getResponseHeaders().set("X-Frame-Options", "DENY");
        ex.getResponseHeaders().set("Referrer-Policy", "no-referrer");
        ex.getResponseHeaders()
                .set(
                        "Content-Security-Policy",
                        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline';"
                                + " img-src 'self' data:; connect-src 'self'; frame-ancestors"
                                + " 'none'");
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream os = ex.getResponseBody()) {
                os.write(bytes);
            }
        }
        return status;
    }

    private static int resource(HttpExchange ex, String name, String type) throws IOException {
        try (InputStream in = ConsoleServer.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                return send(ex, 404, error("missing resource " + name));
            }
            return sendBytes(ex, 200, in.readAllBytes(), type);
        }
    }
}
