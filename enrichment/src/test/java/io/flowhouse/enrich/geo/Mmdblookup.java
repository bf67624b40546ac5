// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * libmaxminddb's own command-line reader (Debian {@code mmdb-bin}): the answer our lookups must
 * equal. One process per lookup, as a user would run it.
 */
final class Mmdblookup {

    // mmdblookup prints a value as:  "US" <utf8_string>   or   13335 <uint32>
    private static final Pattern VALUE = Pattern.compile("^\\s*(\"(.*)\"|(\\d+))\\s+<\\w+>\\s*$");

    private Mmdblookup() {}

    /** The value at {@code path} for {@code ip}, or "" when the address or path has none. */
    static String lookup(Path file, String ip, String... path)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("mmdblookup", "--file", file.toString()));
        cmd.add("--ip");
        cmd.add(ip);
        cmd.addAll(List.of(path));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("mmdblookup hung on " + ip);
        }
        for (String line : out.split("\n")) {
            Matcher m = VALUE.matcher(line);
            if (m.matches()) {
                return m.group(2) != null ? m.group(2) : m.group(3);
            }
        }
        if (out.contains("Could not find an entry") || out.contains("lookup path does not match")) {
            return "";
        }
        throw new IOException("mmdblookup " + ip + ": unexpected output: " + out);
    }
}
