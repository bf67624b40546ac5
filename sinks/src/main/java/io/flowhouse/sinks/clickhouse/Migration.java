// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One versioned migration: {@code <dir>/V<version>__<name>.sql} on the classpath, listed in order
 * in {@code <dir>/MIGRATIONS}; the directory belongs to whoever owns the tables (the sink only runs
 * them, {@link ClickHouseMigrator}). The file is a template ({@link SchemaDialect}) of statements,
 * each ending with {@code ;} at the end of a line.
 *
 * @param version the number in the file name
 * @param name the words after {@code __}
 * @param template the file's text
 */
public record Migration(int version, String name, String template) {

    private static final Pattern FILE = Pattern.compile("V(\\d{3,})__([a-z0-9_]+)\\.sql");
    private static final Pattern STATEMENT_END = Pattern.compile(";[ \\t]*(\\r?\\n|$)");

    /**
     * All migrations of a classpath directory, in version order.
     *
     * @param loader the class loader that holds the directory
     * @param dir the directory, ending in {@code /} ({@code clickhouse/migrations/})
     */
    public static List<Migration> loadAll(ClassLoader loader, String dir) {
        List<Migration> out = new ArrayList<>();
        for (String file : readResource(loader, dir + "MIGRATIONS").split("\n")) {
            String f = file.strip();
            if (f.isEmpty() || f.startsWith("#")) {
                continue;
            }
            Matcher m = FILE.matcher(f);
            if (!m.matches()) {
                throw new IllegalStateException(
                        "migration file name " + f + " (expected: V001__name.sql)");
            }
            int version = Integer.parseInt(m.group(1));
            if (!out.isEmpty() && out.get(out.size() - 1).version() >= version) {
                throw new IllegalStateException(
                        "migration " + f + " is out of order in MIGRATIONS");
            }
            out.add(new Migration(version, m.group(2), readResource(loader, dir + f)));
        }
        return List.copyOf(out);
    }

    /** SHA-256 of the template, recorded when applied. */
    public String checksum() {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(d.digest(template.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The rendered statements, comment-only lines removed, without the final semicolons. */
    public List<String> statements(SchemaDialect dialect) {
        String sql = dialect.render(template);
        List<String> out = new ArrayList<>();
        Matcher m = STATEMENT_END.matcher(sql);
        int start = 0;
        while (m.find()) {
            addStatement(out, sql.substring(start, m.start()));
            start = m.end();
        }
        addStatement(out, sql.substring(start));
        return out;
    }

    private static void addStatement(List<String> out, String chunk) {
        StringBuilder sb = new StringBuilder();
        for (String line : chunk.split("\n")) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("--")) {
                continue;
            }
            sb.append(line.stripTrailing()).append('\n');
        }
        String s = sb.toString().strip();
        if (!s.isEmpty()) {
            out.add(s);
        }
    }

    private static String readResource(ClassLoader loader, String path) {
        try (InputStream in = loader.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing classpath resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
