// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class LearnedVrfsTest {

    private static final InetAddress A = InetAddress.getLoopbackAddress();

    @Test
    void namesByExporterAndVrfIdWithinTheBoundsDropsCounted() throws Exception {
        InetAddress b = InetAddress.getByName("192.0.2.2");
        InetAddress c = InetAddress.getByName("192.0.2.3");
        LearnedVrfs v = new LearnedVrfs(2, 2);
        assertThat(v.learn(A, 10, "blue")).isTrue();
        assertThat(v.learn(A, 4_000_000_001L, "mgmt")).isTrue();
        assertThat(v.learn(A, 11, "red")).as("third VRF of A").isFalse();
        assertThat(v.learn(A, 10, "blue-2")).as("a known VRF is renamed").isTrue();
        assertThat(v.learn(b, 10, "other")).isTrue();
        assertThat(v.learn(c, 1, "x")).as("third exporter").isFalse();
        assertThat(v.name(A, 10)).isEqualTo("blue-2");
        assertThat(v.name(A, 4_000_000_001L)).isEqualTo("mgmt");
        assertThat(v.name(b, 10)).isEqualTo("other");
        assertThat(v.name(A, 11)).isEmpty();
        assertThat(v.name(c, 1)).isEmpty();
        assertThat(v.size()).isEqualTo(3);
        assertThat(v.dropped()).isEqualTo(2);
    }

    @Test
    void anEmptyNameKeepsTheKnownOneAndVrfZeroHasNone() {
        LearnedVrfs v = new LearnedVrfs(4, 4);
        v.learn(A, 0, "zero");
        v.learn(A, 5, "five");
        v.learn(A, 5, "");
        assertThat(v.name(A, 5)).isEqualTo("five");
        assertThat(v.name(A, 0)).as("0: no VRF given").isEmpty();
    }
}
