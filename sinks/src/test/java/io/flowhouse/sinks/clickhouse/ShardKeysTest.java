// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.IpAddress;
import org.junit.jupiter.api.Test;

class ShardKeysTest {

    @Test
    void anExporterAlwaysMapsToTheSameShardAndExportersSpread() {
        int[] perShard = new int[4];
        for (int i = 0; i < 1_000; i++) {
            IpAddress exporter = IpAddress.ofIpv4(0x0A000000 + i);
            int shard = ShardKeys.shard(ShardKeys.exporter(exporter), 4);
            assertThat(ShardKeys.shard(ShardKeys.exporter(IpAddress.ofIpv4(0x0A000000 + i)), 4))
                    .isEqualTo(shard);
            perShard[shard]++;
        }
        // 1,000 consecutive addresses: each of 4 shards gets 250 +- 20 %.
        assertThat(java.util.Arrays.stream(perShard).boxed()).allMatch(n -> n > 200 && n < 300);
        assertThat(ShardKeys.shard(ShardKeys.exporter(IpAddress.ofIpv4(1)), 1)).isZero();
    }

    @Test
    void theKeyIsHalfMd5OfTheAddressInHex() throws Exception {
        // What ClickHouse's halfMD5 gives for the text: the first 8 bytes of MD5, big-endian.
        // The servers' side of the same equality is checked by ShardedClickHouseITCase.
        IpAddress a = IpAddress.parse("192.0.2.1");
        byte[] md5 =
                java.security.MessageDigest.getInstance("MD5")
                        .digest(
                                "00000000000000000000FFFFC0000201"
                                        .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(ShardKeys.exporter(a))
                .isEqualTo(java.nio.ByteBuffer.wrap(md5).getLong())
                .isEqualTo(ShardKeys.exporter(IpAddress.parse("192.0.2.1")));
        assertThat(ShardKeys.exporter(IpAddress.parse("2001:db8::1")))
                .isNotEqualTo(ShardKeys.exporter(a));
        // Pinned: a changed function would move every exporter to another shard.
        assertThat(ShardKeys.shard(ShardKeys.exporter(IpAddress.parse("192.0.2.4")), 2)).isZero();
        assertThat(ShardKeys.shard(ShardKeys.exporter(IpAddress.parse("192.0.2.1")), 2))
                .isEqualTo(1);
    }
}
