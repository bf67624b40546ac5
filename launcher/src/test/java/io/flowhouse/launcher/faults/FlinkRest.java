// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What a running job says about itself over Flink's REST API: restarts, metrics, checkpoints. */
final class FlinkRest {

    private final String base;
    private final String jobId;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();

    FlinkRest(String base, String jobId) {
        this.base = base;
        this.jobId = jobId;
    }

    /** The job's {@code numRestarts}; -1 while the REST API does not answer. */
    long numRestarts() {
        JsonNode n = get("/jobs/" + jobId + "/metrics?get=numRestarts");
        if (n == null || !n.isArray() || n.isEmpty()) {
            return -1;
        }
        return Long.parseLong(n.get(0).path("value").asText("-1"));
    }

    /**
     * The sum over every vertex and subtask of the operator metrics whose name ends with {@code
     * suffix} (for example {@code flowhouse.decode.state_refused_templates_total}).
     */
    long metricSum(String suffix) {
        JsonNode job = get("/jobs/" + jobId);
        if (job == null) {
            return 0;
        }
        long sum = 0;
        for (JsonNode v : job.path("vertices")) {
            String path = "/jobs/" + jobId + "/vertices/" + v.path("id").asText();
            JsonNode names = get(path + "/subtasks/metrics");
            if (names == null) {
                continue;
            }
            List<String> ids = new ArrayList<>();
            for (JsonNode m : names) {
                String id = m.path("id").asText();
                if (id.endsWith(suffix)) {
                    ids.add(id);
                }
            }
            if (ids.isEmpty()) {
                continue;
            }
            JsonNode values =
                    get(
                            path
                                    + "/subtasks/metrics?get="
                                    + URLEncoder.encode(
                                            String.join(",", ids), StandardCharsets.UTF_8));
            if (values != null) {
                for (JsonNode m : values) {
                    sum += (long) m.path("sum").asDouble(0);
                }
            }
        }
        return sum;
    }

    /** The job's recent failures as the REST API gives them (JSON), for a failure message. */
    String exceptions() {
        JsonNode n = get("/jobs/" + jobId + "/exceptions?maxExceptions=3");
        String text = n == null ? "(no answer)" : n.toString();
        return text.length() > 6_000 ? text.substring(0, 6_000) + "..." : text;
    }

    /** Every vertex's name and its subtasks' input watermarks (ms), for a failure message. */
    String watermarks() {
        JsonNode job = get("/jobs/" + jobId);
        if (job == null) {
            return "(no answer)";
        }
        StringBuilder b = new StringBuilder();
        for (JsonNode v : job.path("vertices")) {
            JsonNode w =
                    get("/jobs/" + jobId + "/vertices/" + v.path("id").asText() + "/watermarks");
            String name = v.path("name").asText();
            b.append(name, 0, Math.min(60, name.length())).append('=').append(w).append("; ");
        }
        return b.toString();
    }

    /** The size of the latest completed checkpoint in bytes; 0 before the first. */
    long latestCheckpointBytes() {
        JsonNode n = get("/jobs/" + jobId + "/checkpoints");
        if (n == null) {
            return 0;
        }
        return n.path("latest").path("completed").path("state_size").asLong(0);
    }

    /** Completed checkpoints so far. */
    long completedCheckpoints() {
        JsonNode n = get("/jobs/" + jobId + "/checkpoints");
        return n == null ? 0 : n.path("counts").path("completed").asLong(0);
    }

    private JsonNode get(String path) {
        try {
            HttpResponse<String> r =
                    http.send(
                            HttpRequest.newBuilder(URI.create(base + path))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? json.readTree(r.body()) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
