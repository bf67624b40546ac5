// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.model;

import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One filterable and groupable column: its name in the filter language, its type and, per {@link
 * Source}, the SQL expression that reads it (a constant: expressions never come from a request). A
 * field absent from a source cannot be answered there, so the planner reads another source (or the
 * raw table). Declared in {@link Fields}; a new column (an enrichment such as {@code SrcCountry})
 * is one declaration there.
 *
 * @param name the name in filters and in the API ({@code SrcAS}); matched case-insensitively
 * @param label what the page shows
 * @param type how values are parsed and bound
 * @param min smallest value ({@link FieldType#INTEGER})
 * @param max largest value ({@link FieldType#INTEGER})
 * @param words named values ({@code tcp} = 6), lower case
 * @param columns the expression per source
 * @param groupWith fields a group-by on this field also keys by (an interface index means little
 *     without its exporter)
 */
public record Field(
        String name,
        String label,
        FieldType type,
        long min,
        long max,
        Map<String, Long> words,
        Map<Source, String> columns,
        List<String> groupWith) {

    public Field {
        words = Map.copyOf(words);
        columns = columns.isEmpty() ? Map.of() : new EnumMap<>(columns);
        groupWith = List.copyOf(groupWith);
    }

    /** The expression on a source, if the source has this field. */
    public Optional<String> column(Source source) {
        return Optional.ofNullable(columns.get(source));
    }

    public boolean availableIn(Source source) {
        return columns.containsKey(source);
    }

    /** The word's value, if the field has such a word. */
    public Optional<Long> word(String word) {
        return Optional.ofNullable(words.get(word.toLowerCase(Locale.ROOT)));
    }

    /** The word for a value, for labels ({@code 6} -> {@code tcp}), if there is one. */
    public Optional<String> wordOf(long value) {
        return words.entrySet().stream()
                .filter(e -> e.getValue() == value)
                .map(Map.Entry::getKey)
                .sorted()
                .findFirst();
    }

    /** Starts a declaration. */
    public static Builder of(String name, String label, FieldType type) {
        return new Builder(name, label, type);
    }

    /** Declaration steps. */
    public static final class Builder {
        private final String name;
        private final String label;
        private final FieldType type;
        private long min;
        private long max = Long.MAX_VALUE;
        private Map<String, Long> words = Map.of();
        private final Map<Source, String> columns = new EnumMap<>(Source.class);
        private List<String> groupWith = List.of();

        private Builder(String name, String label, FieldType type) {
            this.name = name;
            this.label = label;
            this.type = type;
        }

        /** The value range of an integer field. */
        public Builder range(long min, long max) {
            this.min = min;
            this.max = max;
            return this;
        }

        /** Named values. */
        public Builder words(Map<String, Long> words) {
            this.words = words;
            return this;
        }

        /** The expression on the raw table. */
        public Builder raw(String expression) {
            columns.put(Source.RAW, expression);
            return this;
        }

        /** The expression on these rollup sources. */
        public Builder rollup(String expression, Source... sources) {
            for (Source s : sources) {
                columns.put(s, expression);
            }
            return this;
        }

        /** Group-bys on this field also key by these fields (declared before it). */
        public Builder groupWith(String... fields) {
            this.groupWith = List.of(fields);
            return this;
        }

        public Field build() {
            return new Field(name, label, type, min, max, words, columns, groupWith);
        }
    }
}
