// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RetryTest {

    @Test
    void stopsAtTheFirstSuccess() {
        AtomicInteger calls = new AtomicInteger();

        boolean done =
                Retry.within(Duration.ofSeconds(10))
                        .every(Duration.ofMillis(1))
                        .until(() -> calls.incrementAndGet() == 3);

        assertThat(done).isTrue();
        assertThat(calls).hasValue(3);
    }

    @Test
    void givesUpWhenTheTimeIsUpAfterTryingAtLeastOnce() {
        AtomicInteger calls = new AtomicInteger();
        long start = System.nanoTime();

        boolean done =
                Retry.within(Duration.ZERO)
                        .every(Duration.ofSeconds(1))
                        .until(
                                () -> {
                                    calls.incrementAndGet();
                                    return false;
                                });

        assertThat(done).isFalse();
        assertThat(calls).hasValue(1);
        assertThat(System.nanoTime() - start).isLessThan(Duration.ofMillis(900).toNanos());
    }

    @Test
    void backsOffByDoublingUpToTheCeiling() {
        List<Long> at = new ArrayList<>();

        Retry.within(Duration.ofMillis(700))
                .backoff(Duration.ofMillis(50), Duration.ofMillis(200))
                .until(
                        () -> {
                            at.add(System.nanoTime());
                            return false;
                        });

        // Attempts at 0, 50, 150, 350, 550 ms and the last at 700 (pauses 50, 100, 200, 200, 150):
        // at most 7 with some slack, where a fixed 50 ms pause gives 15. A loaded machine
        // oversleeps, so fewer is fine.
        assertThat(at.size()).isBetween(2, 7);
    }

    @Test
    void anExceptionEndsTheWait() {
        assertThatThrownBy(
                        () ->
                                Retry.within(Duration.ofSeconds(5))
                                        .until(
                                                () -> {
                                                    throw new IllegalStateException("gone");
                                                }))
                .hasMessage("gone");
    }
}
