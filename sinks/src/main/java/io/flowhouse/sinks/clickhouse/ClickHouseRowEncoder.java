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

    /**
     * What places the row on a shard when the tables are sharded: the same key always reaches the
     * same shard ({@link ShardKeys#shard}), so a replayed row meets its first copy there and {@code
     * FINAL} (which merges within a shard only) collapses them. Rows that replace each other in a
     * {@code ReplacingMergeTree} must share a key. The default puts every row on the first shard.
     */
    default long shardKey(T value) {
        return 0L;
    }
}
