// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.model;

import java.util.List;

/**
 * What traffic is split by: one or more fields whose values together are one key (an interface is
 * exporter + index; a service is protocol + port; a conversation is source + destination).
 *
 * @param name the name in the API and the URL ({@code InIf})
 * @param label what the page shows
 * @param fields the key's fields, in order
 */
public record Dimension(String name, String label, List<Field> fields) {

    public Dimension {
        fields = List.copyOf(fields);
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("dimension " + name + " has no field");
        }
    }

    /** True when every key field can be read from the source. */
    public boolean availableIn(Source source) {
        return fields.stream().allMatch(f -> f.availableIn(source));
    }
}
