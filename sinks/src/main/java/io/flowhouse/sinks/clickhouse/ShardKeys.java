// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Places rows on shards. Every table of the job is sharded by exporter address: a flow, its rollup
 * rows and its exporter's statistics rows live on one shard, replays of them too. The key is the
 * one ClickHouse computes with {@link #EXPORTER_SQL}, the {@code Distributed} tables' sharding key,
 * so the writer and an {@code INSERT} through a {@code Distributed} table place a row alike: shard
 * {@code i} (from 0, in {@code remote_servers} order, every weight 1) takes the keys with {@code
 * key % N == i}.
 */
public final class ShardKeys {

    /**
     * The key in ClickHouse: {@code halfMD5} (the first 8 bytes of MD5, big-endian) of the
     * address's 16 bytes in upper-case hex; the same text on 18.16 ({@code FixedString(16)}) and on
     * current servers ({@code IPv6}).
     */
    public static final String EXPORTER_SQL =
            "halfMD5(hex(IPv6StringToNum(IPv6NumToString(exporter))))";

    private static final byte[] HEX = "0123456789ABCDEF".getBytes(StandardCharsets.US_ASCII);

    /**
     * The last exporter and its key, per thread (rows come in runs of one exporter): hi, lo, key,
     * and 1 once it holds one.
     */
    private static final ThreadLocal<long[]> LAST = ThreadLocal.withInitial(() -> new long[4]);

    private static final ThreadLocal<MessageDigest> MD5 =
            ThreadLocal.withInitial(
                    () -> {
                        try {
                            return MessageDigest.getInstance("MD5");
                        } catch (NoSuchAlgorithmException e) {
                            throw new IllegalStateException(e);
                        }
                    });

    private ShardKeys() {}

    /** The key of an exporter, as {@link #EXPORTER_SQL} computes it. */
    public static long exporter(IpAddress exporter) {
        long[] last = LAST.get();
        if (last[3] == 1 && last[0] == exporter.hi() && last[1] == exporter.lo()) {
            return last[2];
        }
        byte[] text = new byte[32];
        hex(exporter.hi(), text, 0);
        hex(exporter.lo(), text, 16);
        byte[] md5 = MD5.get().digest(text);
        long key = 0;
        for (int i = 0; i < 8; i++) {
            key = (key << 8) | (md5[i] & 0xff);
        }
        last[0] = exporter.hi();
        last[1] = exporter.lo();
        last[2] = key;
        last[3] = 1;
        return key;
    }

    private static void hex(long v, byte[] out, int at) {
        for (int i = 0; i < 16; i++) {
            out[at + i] = HEX[(int) (v >>> (60 - 4 * i)) & 0xf];
        }
    }

    /** The shard (from 0) of {@code key} among {@code shards}: ClickHouse's {@code key % N}. */
    public static int shard(long key, int shards) {
        return shards <= 1 ? 0 : (int) Long.remainderUnsigned(key, shards);
    }
}
