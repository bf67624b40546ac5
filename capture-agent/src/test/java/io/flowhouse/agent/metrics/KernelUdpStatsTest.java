// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class KernelUdpStatsTest {

    @Test
    void sumsDropsAndQueuesOfEverySocketOnAPort() {
        List<String> lines =
                List.of(
                        "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when"
                                + " retrnsmt   uid  timeout inode ref pointer drops",
                        "  101: 0100007F:0807 00000000:0000 07 00000000:00000400 00:00000000"
                                + " 00000000     0        0 1001 2 0000000000000000 17",
                        "  102: 0100007F:0807 00000000:0000 07 00000000:00000000 00:00000000"
                                + " 00000000     0        0 1002 2 0000000000000000 5",
                        "  103: 0100007F:1283 00000000:0000 07 00000000:00000000 00:00000000"
                                + " 00000000     0        0 1003 2 0000000000000000 99");
        Map<Integer, Long> drops = new TreeMap<>();
        Map<Integer, Long> queued = new TreeMap<>();
        KernelUdpStats.parse(lines, Set.of(2055), drops, queued);
        assertThat(drops).containsExactly(Map.entry(2055, 22L));
        assertThat(queued).containsExactly(Map.entry(2055, 1024L));
    }

    @Test
    void readsTheRealProcFilesForAnOpenSocket() throws Exception {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0));
            int port = ((InetSocketAddress) ch.getLocalAddress()).getPort();
            KernelUdpStats stats = KernelUdpStats.read(Set.of(port));
            assertThat(stats.dropsByPort()).containsEntry(port, 0L);
        }
    }
}
