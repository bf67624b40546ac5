// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.server;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** The console's counters, served as Prometheus text on {@code /metrics}. */
public final class ConsoleMetrics {

    private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
    final AtomicLong filterRejected = new AtomicLong();
    final AtomicLong queries = new AtomicLong();
    final AtomicLong rowsRead = new AtomicLong();
    final AtomicLong limitHits = new AtomicLong();
    final AtomicLong authFailures = new AtomicLong();

    void request(String endpoint, int status) {
        requests.computeIfAbsent(
                        "endpoint=\"" + endpoint + "\",status=\"" + status + "\"",
                        k -> new AtomicLong())
                .incrementAndGet();
    }

    /** The counters in Prometheus text format. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        sb.append("# TYPE flowhouse_console_requests_total counter\n");
        new TreeMap<>(requests)
                .forEach(
                        (labels, n) ->
                                sb.append("flowhouse_console_requests_total{")
                                        .append(labels)
                                        .append("} ")
                                        .append(n.get())
                                        .append('\n'));
        counter(sb, "flowhouse_console_filters_rejected_total", filterRejected);
        counter(sb, "flowhouse_console_queries_total", queries);
        counter(sb, "flowhouse_console_rows_read_total", rowsRead);
        counter(sb, "flowhouse_console_limit_hits_total", limitHits);
        counter(sb, "flowhouse_console_auth_failures_total", authFailures);
        return sb.toString();
    }

    private static void counter(StringBuilder sb, String name, AtomicLong v) {
        sb.append("# TYPE ").append(name).append(" counter\n");
        sb.append(name).append(' ').append(v.get()).append('\n');
    }
}
