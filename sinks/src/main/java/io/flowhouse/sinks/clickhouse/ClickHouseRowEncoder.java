// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.Serializable;
import java.util.List;

/**
 * Turns one value into one RowBinary row of a table. The column list and the bytes both depend on
 * the server's capabilities (for example {@code DateTime} seconds on 18.16, {@code DateTime64(3)}
 * milliseconds on current servers), which the writer detects once when it opens.
 *
 * @param <T> the value type
 */
public interface ClickHouseRowEncoder<T> extends Serializable {

    /** The table, unqualified (the database comes from the options). */
    String table();

    /** The columns {@link #encode} writes, in order. */
    List<String> columns(ServerCapabilities caps);

    /** Appends one row. */
    void encode(T value, RowBinaryOutput out, ServerCapabilities caps);
}
