// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

/**
 * Where a flow's AS number comes from: routers often send 0 (no BGP on the exporter, or an exporter
 * that does not fill the field), so the default takes the exporter's number and asks the database
 * only when it is 0.
 */
public enum AsnOrder {
    /** The exporter's number; the database's when the exporter sent 0. */
    EXPORTER_FIRST("exporter-first"),
    /** The database's number only (0 when the address is not in it). */
    DATABASE("database"),
    /** The exporter's number only, as before enrichment. */
    EXPORTER("exporter");

    private final String word;

    AsnOrder(String word) {
        this.word = word;
    }

    public String word() {
        return word;
    }

    /** Whether {@code exporterAs} is kept as it is, so the database need not be asked. */
    public boolean keepsExporter(long exporterAs) {
        return this == EXPORTER || (this == EXPORTER_FIRST && exporterAs != 0);
    }

    public static AsnOrder of(String text) {
        for (AsnOrder o : values()) {
            if (o.word.equalsIgnoreCase(text.trim())) {
                return o;
            }
        }
        throw new IllegalArgumentException("(expected: exporter-first, database, exporter)");
    }
}
