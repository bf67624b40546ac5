// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/** The few HTTP calls the launcher makes (ClickHouse, Flink REST), on the JDK's client. */
public final class Http {

    private static final HttpClient CLIENT =
            HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .version(HttpClient.Version.HTTP_1_1)
                    .build();

    private Http() {}

    public static HttpClient client() {
        return CLIENT;
    }

    /** A response: status and body text. */
    public record Response(int status, String body) {
        public boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    public static Response get(String url, Duration timeout)
            throws IOException, InterruptedException {
        return get(url, timeout, Map.of());
    }

    /** GET with extra request headers (credentials: never in the URL, so never in a log line). */
    public static Response get(String url, Duration timeout, Map<String, String> headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).timeout(timeout).GET();
        headers.forEach(b::header);
        HttpRequest request = b.build();
        HttpResponse<String> response =
                CLIENT.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        return new Response(response.statusCode(), response.body());
    }

    public static Response post(String url, String body, String contentType, Duration timeout)
            throws IOException, InterruptedException {
        return post(url, body, contentType, timeout, Map.of());
    }

    /** POST with extra request headers. */
    public static Response post(
            String url,
            String body,
            String contentType,
            Duration timeout,
            Map<String, String> headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder b =
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(timeout)
                        .header("Content-Type", contentType)
                        .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        headers.forEach(b::header);
        HttpRequest request = b.build();
        HttpResponse<String> response =
                CLIENT.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        return new Response(response.statusCode(), response.body());
    }
}
