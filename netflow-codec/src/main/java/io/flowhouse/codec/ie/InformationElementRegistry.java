// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.ie;

import io.flowhouse.codec.template.FieldSpecifier;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Information elements by id and by name, loaded from the IANA {@code
 * ipfix-information-elements.csv} export checked in as a resource, plus the RFC 5103 reverse
 * elements (PEN 29305, same id, name {@code reverse} + Name). Immutable and thread-safe.
 */
public final class InformationElementRegistry {

    /** Resource path of the checked-in IANA export. */
    public static final String IANA_CSV = "/io/flowhouse/codec/ie/ipfix-information-elements.csv";

    /**
     * Elements the checked-in export lists only as "Assigned for NetFlow v9 compatibility" (34, 35,
     * 38, 39, 48-51), with the names the current IANA registry gives them (RFC 7270).
     */
    public static final String SUPPLEMENT_CSV =
            "/io/flowhouse/codec/ie/ipfix-information-elements-supplement.csv";

    /** Elements RFC 5103 section 6.1 says have no reverse counterpart. */
    private static final List<Integer> NON_REVERSIBLE = List.of(137, 138, 141, 144, 145, 148, 149);

    private static volatile InformationElementRegistry iana;

    private final Map<Long, InformationElement> byKey;
    private final Map<String, InformationElement> byName;

    private InformationElementRegistry(Collection<InformationElement> elements) {
        Map<Long, InformationElement> k = new HashMap<>();
        Map<String, InformationElement> n = new HashMap<>();
        for (InformationElement e : elements) {
            k.put(key(e.enterpriseNumber(), e.id()), e);
            n.putIfAbsent(e.name(), e);
        }
        this.byKey = Collections.unmodifiableMap(k);
        this.byName = Collections.unmodifiableMap(n);
    }

    /** The IANA registry (loaded once). */
    public static InformationElementRegistry iana() {
        InformationElementRegistry r = iana;
        if (r == null) {
            synchronized (InformationElementRegistry.class) {
                r = iana;
                if (r == null) {
                    try (InputStream in = resource(IANA_CSV);
                            InputStream sup = resource(SUPPLEMENT_CSV)) {
                        r =
                                load(
                                        new InputStreamReader(in, StandardCharsets.UTF_8),
                                        new InputStreamReader(sup, StandardCharsets.UTF_8));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                    iana = r;
                }
            }
        }
        return r;
    }

    private static InputStream resource(String path) {
        InputStream in = InformationElementRegistry.class.getResourceAsStream(path);
        if (in == null) {
            throw new IllegalStateException("resource missing: " + path);
        }
        return in;
    }

    /**
     * Parses CSVs in the IANA export's layout (ElementID, Name, Data Type, Semantics, Status,
     * Description, Units, ...); a later CSV overrides an earlier one for the same id.
     */
    public static InformationElementRegistry load(Reader... csvs) throws IOException {
        List<List<String>> rows = new ArrayList<>();
        for (Reader csv : csvs) {
            List<List<String>> part = parseCsv(new BufferedReader(csv));
            rows.addAll(part.subList(Math.min(1, part.size()), part.size()));
        }
        Map<Integer, InformationElement> ianaById = new TreeMap<>();
        for (int i = 0; i < rows.size(); i++) {
            List<String> r = rows.get(i);
            if (r.size() < 3
                    || r.get(0).isEmpty()
                    || !r.get(0).chars().allMatch(Character::isDigit)) {
                continue; // ranges such as "403-32767,Unassigned" and the header
            }
            String name = r.get(1).trim();
            if (name.isEmpty() || name.equals("Reserved") || name.equals("Unassigned")) {
                continue;
            }
            int id = Integer.parseInt(r.get(0));
            DataType type = DataType.fromIana(r.get(2));
            String semantics = r.size() > 3 ? r.get(3).trim() : "";
            String units = r.size() > 6 ? r.get(6).trim() : "";
            ianaById.put(id, new InformationElement(id, 0L, name, type, semantics, units));
        }
        List<InformationElement> out = new ArrayList<>(ianaById.values());
        List<InformationElement> reverse = new ArrayList<>();
        for (InformationElement e : out) {
            if (!NON_REVERSIBLE.contains(e.id())) {
                String n =
                        "reverse"
                                + Character.toUpperCase(e.name().charAt(0))
                                + e.name().substring(1);
                reverse.add(
                        new InformationElement(
                                e.id(),
                                FieldSpecifier.REVERSE_PEN,
                                n,
                                e.dataType(),
                                e.semantics(),
                                e.units()));
            }
        }
        out.addAll(reverse);
        return new InformationElementRegistry(out);
    }

    public Optional<InformationElement> find(long enterpriseNumber, int id) {
        return Optional.ofNullable(byKey.get(key(enterpriseNumber, id)));
    }

    public Optional<InformationElement> find(int id) {
        return find(0L, id);
    }

    public Optional<InformationElement> byName(String name) {
        return Optional.ofNullable(byName.get(name));
    }

    /** Like {@link #byName} but fails if the name is unknown (for tables in code). */
    public InformationElement require(String name) {
        InformationElement e = byName.get(name);
        if (e == null) {
            throw new IllegalArgumentException("no information element named " + name);
        }
        return e;
    }

    public int size() {
        return byKey.size();
    }

    private static long key(long pen, int id) {
        return (pen << 16) | id;
    }

    /** RFC 4180 CSV: quoted fields may hold commas, doubled quotes and line breaks. */
    static List<List<String>> parseCsv(BufferedReader in) throws IOException {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        int c;
        while ((c = in.read()) != -1) {
            if (quoted) {
                if (c == '"') {
                    in.mark(1);
                    int d = in.read();
                    if (d == '"') {
                        field.append('"');
                    } else {
                        quoted = false;
                        if (d != -1) {
                            in.reset();
                        }
                    }
                } else {
                    field.append((char) c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                row.add(field.toString());
                field.setLength(0);
            } else if (c == '\n') {
                row.add(field.toString());
                field.setLength(0);
                rows.add(row);
                row = new ArrayList<>();
            } else if (c != '\r') {
                field.append((char) c);
            }
        }
        if (field.length() > 0 || !row.isEmpty()) {
            row.add(field.toString());
            rows.add(row);
        }
        return rows;
    }
}
