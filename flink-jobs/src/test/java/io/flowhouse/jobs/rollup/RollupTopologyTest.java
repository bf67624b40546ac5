// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RollupTopologyTest {

    private static final Duration M1 = Duration.ofMinutes(1);
    private static final Duration M5 = Duration.ofMinutes(5);
    private static final Duration H1 = Duration.ofHours(1);

    @Test
    void aCoarserResolutionDerivesFromTheCoarsestFinerOneThatDividesIt() {
        List<Duration> all = List.of(H1, M1, M5);
        assertThat(RollupTopology.source(M1, all)).isNull();
        assertThat(RollupTopology.source(M5, all)).isEqualTo(M1);
        assertThat(RollupTopology.source(H1, all)).isEqualTo(M5);
        assertThat(RollupTopology.source(Duration.ofDays(1), List.of(M1, H1))).isEqualTo(H1);
    }

    @Test
    void aResolutionThatNoFinerOneDividesIsComputedFromTheFlows() {
        Duration s90 = Duration.ofSeconds(90);
        assertThat(RollupTopology.source(s90, List.of(M1, s90))).isNull();
        assertThat(RollupTopology.source(Duration.ofMinutes(3), List.of(Duration.ofMinutes(2))))
                .isNull();
        assertThat(RollupTopology.source(Duration.ofMinutes(3), List.of(s90))).isEqualTo(s90);
    }
}
