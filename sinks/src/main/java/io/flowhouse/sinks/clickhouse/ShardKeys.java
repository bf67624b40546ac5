// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import io.flowhouse.codec.flow.IpAddress;

/**
 * Places rows on shards. Every table of the job is sharded by exporter address: a flow, its rollup
 * rows and its exporter's statistics rows live on one shard, replays of them too, and the shard of
 * an exporter depends only on its address and the number of shards (changing the number of shards
 * moves exporters: see sinks/README-clickhouse.md).
 */
public final class ShardKeys {

    private ShardKeys() {}

    /** The key of an exporter: its 128 bits, mixed (a fixed function, never a JVM hash). */
    public static long exporter(IpAddress exporter) {
        return mix(exporter.hi() * 0x9E3779B97F4A7C15L ^ exporter.lo());
    }

    /** The shard (from 0) of {@code key} among {@code shards}. */
    public static int shard(long key, int shards) {
        return shards <= 1 ? 0 : (int) Long.remainderUnsigned(key, shards);
    }

    /** The finaliser of MurmurHash3's 64-bit variant: every input bit moves every output bit. */
    static long mix(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }
}
