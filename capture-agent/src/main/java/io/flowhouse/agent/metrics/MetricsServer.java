// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.metrics;

import com.sun.net.httpserver.HttpExchange;
import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * The agent's HTTP endpoint: Prometheus text format on {@code /metrics}, and {@code /health}
 * answering 200 with a small JSON status while the agent can take datagrams, 503 when it cannot
 * (spool nearly full, shutting down).
 */
public final class MetricsServer implements AutoCloseable {

    /** What {@code /health} reports. */
    public record Health(boolean ok, String status, String json) {}

    private final HTTPServer server;

    public MetricsServer(String host, int port, AgentMetrics metrics, Supplier<Health> health)
            throws IOException {
        this.server =
                HTTPServer.builder()
                        .hostname(host)
                        .port(port)
                        .registry(metrics.registry())
                        .defaultHandler(exchange -> serve(exchange, health))
                        .buildAndStart();
    }

    private static void serve(HttpExchange exchange, Supplier<Health> health) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            int code;
            byte[] body;
            String type = "application/json";
            if (path.equals("/health") || path.equals("/healthz")) {
                Health h = health.get();
                code = h.ok() ? 200 : 503;
                body = h.json().getBytes(StandardCharsets.UTF_8);
            } else if (path.equals("/")) {
                code = 200;
                type = "text/plain; charset=utf-8";
                body =
                        "flowhouse agent: /metrics (Prometheus), /health\n"
                                .getBytes(StandardCharsets.UTF_8);
            } else {
                code = 404;
                type = "text/plain; charset=utf-8";
                body = "not found\n".getBytes(StandardCharsets.UTF_8);
            }
            exchange.getResponseHeaders().set("Content-Type", type);
            exchange.sendResponseHeaders(code, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.close();
    }
}
