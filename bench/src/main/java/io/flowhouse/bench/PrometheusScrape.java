// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Reads counters from a Prometheus text endpoint, summing every series of a metric. */
final class PrometheusScrape {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String text;

    private PrometheusScrape(String text) {
        this.text = text;
    }

    static PrometheusScrape fetch(String url) throws IOException, InterruptedException {
        HttpRequest req =
                HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> res = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        if (res.statusCode() != 200) {
            throw new IOException(url + " answered " + res.statusCode());
        }
        return new PrometheusScrape(res.body());
    }

    /** Sum of all series of {@code name} (any labels); 0 when absent. */
    long sum(String name) {
        return sum(name, null);
    }

    /** Sum of the series of {@code name} whose label text contains {@code labelFragment}. */
    long sum(String name, String labelFragment) {
        double total = 0;
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.charAt(0) == '#' || !line.startsWith(name)) {
                continue;
            }
            int rest = name.length();
            if (rest < line.length() && line.charAt(rest) != '{' && line.charAt(rest) != ' ') {
                continue; // a longer metric name with the same prefix
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            if (labelFragment != null && !series.contains(labelFragment)) {
                continue;
            }
            total += Double.parseDouble(line.substring(space + 1));
        }
        return Math.round(total);
    }
}
