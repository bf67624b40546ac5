// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.emit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The pacing logic, driven with made-up nanoTime readings: no sleeping, no timing asserts. */
class RateLimiterTest {

    private static final long S = 1_000_000_000L;

    @Test
    void earnsUnitsAtTheTargetRate() {
        RateLimiter l = new RateLimiter(1000, 0, 1_000_000);
        assertThat(l.available(0)).isZero();
        assertThat(l.available(S / 1000)).isEqualTo(1);
        assertThat(l.available(S)).isEqualTo(1000);
        l.consume(600);
        assertThat(l.available(S)).isEqualTo(400);
        assertThat(l.available(2 * S)).isEqualTo(1400);
    }

    @Test
    void aLargeDatagramGoesOnCreditAndTheNextWaits() {
        RateLimiter l = new RateLimiter(100, 0, 1_000);
        assertThat(l.available(S / 100)).isEqualTo(1);
        l.consume(30); // a v5 datagram of 30 flows
        assertThat(l.available(S / 100)).isEqualTo(-29);
        // The next unit is due when 31 units have been earned: 310 ms.
        assertThat(l.nanosUntil(1, S / 100)).isEqualTo(300_000_000L);
        assertThat(l.available(310_000_000L)).isEqualTo(1);
    }

    @Test
    void holdsTheLongRunRateExactlyWhenTheSenderKeepsUp() {
        // Simulate a sender that wakes at irregular times and sends all it may, 1 to 30 units at
        // a time: the total after 10 s is the scheduled total, to the unit.
        RateLimiter l = new RateLimiter(50_000, 0, 5_000);
        long now = 0;
        long sent = 0;
        int step = 0;
        while (now < 10 * S) {
            long avail = l.available(now);
            while (avail > 0) {
                int datagram = 1 + (step++ % 30);
                l.consume(datagram);
                sent += datagram;
                avail -= datagram;
            }
            now += 37_000 + (step % 7) * 11_000; // 37..103 us between wake-ups
        }
        long scheduled = l.scheduled(now);
        assertThat(l.shortfall()).isZero();
        assertThat(sent).isBetween(scheduled - 5_000, scheduled + 30);
        assertThat((double) sent / 10)
                .isCloseTo(50_000, org.assertj.core.data.Percentage.withPercentage(2));
    }

    @Test
    void fallingBehindIsCountedNotHidden() {
        RateLimiter l = new RateLimiter(10_000, 0, 1_000);
        // The sender stalls for a whole second: 10,000 units due, at most 1,000 may be caught up.
        assertThat(l.available(S)).isEqualTo(1_000);
        assertThat(l.shortfall()).isEqualTo(9_000);
        assertThat(l.behindEvents()).isEqualTo(1);
        l.consume(1_000);
        assertThat(l.available(S)).isZero();
        // From then on it keeps up again: no further shortfall.
        assertThat(l.available(S + S / 10)).isEqualTo(1_000);
        assertThat(l.shortfall()).isEqualTo(9_000);
    }

    @Test
    void unlimitedNeverWaits() {
        RateLimiter l = new RateLimiter(0, 0, 1);
        assertThat(l.unlimited()).isTrue();
        assertThat(l.available(0)).isEqualTo(Long.MAX_VALUE);
        assertThat(l.nanosUntil(1_000_000, 0)).isZero();
    }

    @Test
    void defaultBacklogIsATenthOfASecond() {
        RateLimiter l = RateLimiter.withDefaultBacklog(100_000, 0, 64);
        assertThat(l.available(5 * S)).isEqualTo(10_000);
        RateLimiter slow = RateLimiter.withDefaultBacklog(10, 0, 64);
        assertThat(slow.available(100 * S)).isEqualTo(64);
    }
}
