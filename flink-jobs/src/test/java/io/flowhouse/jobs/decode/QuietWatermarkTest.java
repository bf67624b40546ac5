// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class QuietWatermarkTest {

    private static final long NONE = Long.MIN_VALUE;
    private static final long T0 = 1_700_000_000_000L;

    @Test
    void aQuietStreamMovesOnFromItsLastWatermarkByTheElapsedTimeMinusTheBound() {
        QuietWatermark q = new QuietWatermark(3_000);
        assertThat(q.advance(5_000)).as("no receive time known yet").isEqualTo(NONE);
        assertThat(q.input(T0, 10_000)).isTrue();
        assertThat(q.advance(12_999)).as("not quiet yet").isEqualTo(NONE);
        assertThat(q.advance(13_000)).as("quiet: where it was (not above)").isEqualTo(NONE);
        assertThat(q.advance(14_000)).isEqualTo(T0 + 1_000);
        assertThat(q.advance(14_500)).as("less than a step").isEqualTo(NONE);
        assertThat(q.advance(75_000)).isEqualTo(T0 + 62_000);
    }

    @Test
    void aDatagramKeepsTheStreamFromBeingQuiet() {
        QuietWatermark q = new QuietWatermark(3_000);
        q.input(T0, 0);
        q.datagram(10_000);
        assertThat(q.advance(12_000)).isEqualTo(NONE);
        // Quiet again: the receive clock carried on from the last watermark, not from the datagram.
        assertThat(q.advance(13_000)).isEqualTo(T0 + 10_000);
    }

    @Test
    void theInputGoesOnOnlyAboveWhatTheWallClockReached() {
        QuietWatermark q = new QuietWatermark(3_000);
        q.input(T0, 0);
        assertThat(q.advance(60_000)).isEqualTo(T0 + 57_000);
        assertThat(q.input(T0 + 30_000, 61_000)).as("behind: held back").isFalse();
        assertThat(q.advance(63_000)).as("the input moved: not quiet").isEqualTo(NONE);
        assertThat(q.input(T0 + 58_000, 64_000)).isTrue();
        assertThat(q.input(Long.MAX_VALUE, 65_000)).as("the end of a bounded input").isTrue();
        assertThat(q.advance(99_000)).isEqualTo(NONE);
    }

    @Test
    void aRestoredWatermarkMovesOnFromTheRestore() {
        QuietWatermark q = new QuietWatermark(3_000);
        q.restored(T0, 100_000);
        assertThat(q.knowsTime()).isTrue();
        assertThat(q.advance(102_000)).isEqualTo(NONE);
        assertThat(q.advance(110_000)).isEqualTo(T0 + 7_000);
    }
}
