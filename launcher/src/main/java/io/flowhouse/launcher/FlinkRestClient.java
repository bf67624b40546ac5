// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.flowhouse.services.Http;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The parts of Flink's REST API that submit and manage jobs on a session cluster: upload a jar
 * ({@code POST /jars/upload}), run it ({@code POST /jars/:id/run}), list jobs, cancel, and stop
 * with a savepoint.
 *
 * @see <a href="https://nightlies.apache.org/flink/flink-docs-release-2.2/docs/ops/rest_api/">Flink
 *     REST API</a>
 */
public final class FlinkRestClient {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);

    private final String baseUrl;

    public FlinkRestClient(String baseUrl) {
        this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    }

    public String baseUrl() {
        return baseUrl;
    }

    /** A job as {@code /jobs/overview} lists it. */
    public record JobSummary(String id, String name, String state, long startTime, long duration) {}

    /** What a run request needs besides the jar. */
    public record RunRequest(
            Optional<String> entryClass,
            List<String> programArgs,
            Optional<Integer> parallelism,
            Optional<String> savepointPath,
            boolean allowNonRestoredState) {}

    /** Uploads a jar; returns the id the cluster gave it. */
    public String uploadJar(Path jar) throws IOException, InterruptedException {
        String boundary = "----flowhouse" + UUID.randomUUID().toString().replace("-", "");
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String head =
                "--"
                        + boundary
                        + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\""
                        + jar.getFileName()
                        + "\"\r\nContent-Type: application/x-java-archive\r\n\r\n";
        body.write(head.getBytes(StandardCharsets.UTF_8));
        body.write(Files.readAllBytes(jar));
        body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(baseUrl + "/jars/upload"))
                        .timeout(CALL_TIMEOUT)
                        .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                        .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray()))
                        .build();
        JsonNode answer = send(request, "upload " + jar.getFileName());
        String filename = answer.path("filename").asText("");
        if (!"success".equals(answer.path("status").asText()) || filename.isEmpty()) {
            throw new IOException("jar upload failed: " + answer);
        }
        return Path.of(filename).getFileName().toString();
    }

    /** Runs an uploaded jar; returns the job id. */
    public String runJar(String jarId, RunRequest run) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode();
        run.entryClass().ifPresent(c -> body.put("entryClass", c));
        ArrayNode args = body.putArray("programArgsList");
        run.programArgs().forEach(args::add);
        run.parallelism().ifPresent(p -> body.put("parallelism", p));
        run.savepointPath().ifPresent(p -> body.put("savepointPath", p));
        if (run.allowNonRestoredState()) {
            body.put("allowNonRestoredState", true);
        }
        JsonNode answer = post("/jars/" + jarId + "/run", body, "run " + jarId);
        String jobId = answer.path("jobid").asText("");
        if (jobId.isEmpty()) {
            throw new IOException("the cluster did not return a job id: " + answer);
        }
        return jobId;
    }

    public List<JobSummary> listJobs() throws IOException, InterruptedException {
        JsonNode answer = get("/jobs/overview");
        List<JobSummary> jobs = new ArrayList<>();
        for (JsonNode job : answer.path("jobs")) {
            jobs.add(
                    new JobSummary(
                            job.path("jid").asText(),
                            job.path("name").asText(),
                            job.path("state").asText(),
                            job.path("start-time").asLong(),
                            job.path("duration").asLong()));
        }
        return jobs;
    }

    /** The job's state: CREATED, RUNNING, FINISHED, FAILED, CANCELED, ... */
    public String jobState(String jobId) throws IOException, InterruptedException {
        return get("/jobs/" + jobId).path("state").asText();
    }

    /** The root exception of a failed job, if the cluster recorded one. */
    public Optional<String> rootException(String jobId) throws IOException, InterruptedException {
        JsonNode answer = get("/jobs/" + jobId + "/exceptions");
        String root = answer.path("root-exception").asText("");
        if (root.isEmpty()) {
            root =
                    answer.path("exceptionHistory")
                            .path("entries")
                            .path(0)
                            .path("stacktrace")
                            .asText("");
        }
        return root.isEmpty() ? Optional.empty() : Optional.of(root);
    }

    /** Waits until the job reaches one of {@code states} or a terminal state; returns it. */
    public String awaitState(String jobId, Duration timeout, String... states)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String state = jobState(jobId);
        while (System.nanoTime() < deadline) {
            for (String wanted : states) {
                if (wanted.equals(state)) {
                    return state;
                }
            }
            if (isTerminal(state)) {
                return state;
            }
            Thread.sleep(250);
            state = jobState(jobId);
        }
        return state;
    }

    public static boolean isTerminal(String state) {
        return switch (state) {
            case "FINISHED", "FAILED", "CANCELED", "SUSPENDED" -> true;
            default -> false;
        };
    }

    /** Cancels a job without a savepoint. */
    public void cancel(String jobId) throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(baseUrl + "/jobs/" + jobId + "?mode=cancel"))
                        .timeout(CALL_TIMEOUT)
                        .method("PATCH", HttpRequest.BodyPublishers.noBody())
                        .build();
        send(request, "cancel " + jobId);
    }

    /**
     * Stops a job with a savepoint in {@code targetDirectory} (a URI or path the JobManager can
     * write) and waits for it; returns the savepoint's location.
     */
    public String stopWithSavepoint(String jobId, String targetDirectory, Duration timeout)
            throws IOException, InterruptedException {
        return stopWithSavepoint(jobId, targetDirectory, timeout, false);
    }

    /**
     * As {@link #stopWithSavepoint(String, String, Duration)}; with {@code drain}, the sources send
     * the final watermark first, so every event-time window fires before the job stops.
     */
    public String stopWithSavepoint(
            String jobId, String targetDirectory, Duration timeout, boolean drain)
            throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode();
        body.put("targetDirectory", targetDirectory);
        body.put("drain", drain);
        String triggerId =
                post("/jobs/" + jobId + "/stop", body, "stop " + jobId).path("request-id").asText();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode status = get("/jobs/" + jobId + "/savepoints/" + triggerId);
            if ("COMPLETED".equals(status.path("status").path("id").asText())) {
                JsonNode operation = status.path("operation");
                if (operation.has("failure-cause")) {
                    throw new IOException(
                            "savepoint failed: "
                                    + operation
                                            .path("failure-cause")
                                            .path("stack-trace")
                                            .asText(operation.path("failure-cause").toString()));
                }
                return operation.path("location").asText();
            }
            Thread.sleep(500);
        }
        throw new IOException("savepoint of " + jobId + " did not complete within " + timeout);
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(baseUrl + path))
                        .timeout(CALL_TIMEOUT)
                        .GET()
                        .build();
        return send(request, "GET " + path);
    }

    private JsonNode post(String path, JsonNode body, String what)
            throws IOException, InterruptedException {
        HttpRequest request =
                HttpRequest.newBuilder(URI.create(baseUrl + path))
                        .timeout(CALL_TIMEOUT)
                        .header("Content-Type", "application/json")
                        .POST(
                                HttpRequest.BodyPublishers.ofString(
                                        JSON.writeValueAsString(body), StandardCharsets.UTF_8))
                        .build();
        return send(request, what);
    }

    private static JsonNode send(HttpRequest request, String what)
            throws IOException, InterruptedException {
        HttpResponse<String> response =
                Http.client()
                        .send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        String text = response.body() == null ? "" : response.body();
        JsonNode json = text.isBlank() ? JSON.createObjectNode() : JSON.readTree(text);
        if (response.statusCode() >= 300) {
            JsonNode errors = json.path("errors");
            String message = errors.isArray() && errors.size() > 0 ? errors.toString() : text;
            throw new IOException(what + ": HTTP " + response.statusCode() + ": " + message);
        }
        return json;
    }
}
