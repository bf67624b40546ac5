// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.clickhouse;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The small HTTP client behind {@link ClickHouseService#query}: POSTs the statement, returns the
 * TabSeparated body as lines. Uses the JDK client only, so test helpers never depend on the
 * production ClickHouse client they are meant to check.
 */
final class ClickHouseHttp {

    private static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(5);

    private final HttpClient http =
            HttpClient.newBuilder()
                    .connectTimeout(Duration.ofSeconds(5))
                    .version(HttpClient.Version.HTTP_1_1)
                    .build();

    /** Thrown when the server answers with an error status; carries its text. */
    static final class ClickHouseHttpException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int status;

        ClickHouseHttpException(int status, String message) {
            super(message);
            this.status = status;
        }

        int status() {
            return status;
        }
    }

    List<String> query(String baseUrl, String user, String password, String sql) {
        String body = send(baseUrl, user, password, sql, REQUEST_TIMEOUT);
        List<String> lines = new ArrayList<>();
        int start = 0;
        while (start < body.length()) {
            int nl = body.indexOf('\n', start);
            if (nl < 0) {
                lines.add(body.substring(start));
                break;
            }
            lines.add(body.substring(start, nl));
            start = nl + 1;
        }
        return lines;
    }

    private String send(
            String baseUrl, String user, String password, String sql, Duration timeout) {
        String url = baseUrl + "/?database=default";
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(url))
                        .timeout(timeout)
                        .POST(HttpRequest.BodyPublishers.ofString(sql, StandardCharsets.UTF_8));
        // Basic auth only: newer servers refuse credentials given both as header and parameter.
        String basic =
                Base64.getEncoder()
                        .encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
        request.header("Authorization", "Basic " + basic);
        try {
            HttpResponse<String> response =
                    http.send(
                            request.build(),
                            HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            if (response.statusCode() != 200) {
                throw new ClickHouseHttpException(
                        response.statusCode(),
                        "clickhouse answered HTTP "
                                + response.statusCode()
                                + " to ["
                                + abbreviate(sql)
                                + "]: "
                                + response.body().trim());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException("clickhouse at " + baseUrl + " unreachable", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while querying clickhouse", e);
        }
    }

    private static String abbreviate(String sql) {
        return sql.length() <= 200 ? sql : sql.substring(0, 200) + "...";
    }
}
