// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.it;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads top-level numbers from a loadgen {@code --summary-json} file, as an outside tool would. */
final class SummaryJson {
    private final String text;

    private SummaryJson(String text) {
        this.text = text;
    }

    static SummaryJson read(Path file) throws IOException {
        return new SummaryJson(Files.readString(file, StandardCharsets.UTF_8));
    }

    /** The first {@code "name": number} in the file (top-level fields come before exporters). */
    long number(String name) {
        Matcher m = Pattern.compile("\"" + name + "\": (-?[0-9]+)").matcher(text);
        if (!m.find()) {
            throw new IllegalArgumentException("no field " + name + " in " + text);
        }
        return Long.parseLong(m.group(1));
    }

    /** How many exporter objects the file lists. */
    int exporters() {
        Matcher m = Pattern.compile("\\{\"index\": ").matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Override
    public String toString() {
        return text;
    }
}
