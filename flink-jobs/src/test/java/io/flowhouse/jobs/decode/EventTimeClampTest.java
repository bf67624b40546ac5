// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.config.EventTimeSettings;
import io.flowhouse.jobs.rollup.FlowSplitter;
import io.flowhouse.jobs.rollup.RollupRow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.junit.jupiter.api.Test;

class EventTimeClampTest {

    private static final long RECEIVED = 1_700_000_000_000L;
    private static final long HOUR = 3_600_000L;

    private static FlowRecord flow(long start, long end) {
        return FlowRecord.builder()
                .timeReceivedMillis(RECEIVED)
                .flowStartMillis(start)
                .flowEndMillis(end)
                .packets(10)
                .bytes(1_000)
                .build();
    }

    @Test
    void aFlowLongerThanTheLongestIsCutAndCountedApart() {
        EventTimeClamp clamp = new EventTimeClamp(EventTimeSettings.defaults());
        FlowRecord tooLong = flow(RECEIVED - 30 * 24 * HOUR, RECEIVED);
        FlowRecord cut = clamp.apply(tooLong);
        assertThat(cut.flowStartMillis()).isEqualTo(RECEIVED - HOUR);
        assertThat(cut.exportedFlowStartMillis()).isEqualTo(tooLong.flowStartMillis());
        assertThat(EventTimeClamp.durationCut(tooLong, cut)).isTrue();

        // An end moved into the window takes its start along: clamped, not cut.
        FlowRecord early = flow(RECEIVED - 2 * HOUR - 600_000L, RECEIVED - 2 * HOUR);
        FlowRecord moved = clamp.apply(early);
        assertThat(moved).isNotSameAs(early);
        assertThat(moved.flowEndMillis() - moved.flowStartMillis()).isEqualTo(600_000L);
        assertThat(EventTimeClamp.durationCut(early, moved)).isFalse();
    }

    @Test
    void theLongestFlowDurationBoundsTheRollupPiecesOfOneFlow() {
        // Six kinds per window; at most max-flow-duration / resolution + 1 windows.
        Duration longest = EventTimeSettings.defaults().maxFlowDuration();
        long minute = 60_000L;
        long bound = 6 * (longest.toMillis() / minute + 1);
        FlowRecord cut =
                new EventTimeClamp(EventTimeSettings.defaults())
                        .apply(flow(RECEIVED - 1_000 * HOUR + 12_345, RECEIVED - 5_000));
        List<RollupRow> pieces = new ArrayList<>();
        new FlowSplitter(minute).flatMap(cut, new ListCollector<>(pieces));
        assertThat(pieces).hasSizeLessThanOrEqualTo((int) bound).hasSizeGreaterThan(300);
        assertThat(pieces.stream().mapToLong(RollupRow::packets).sum()).isEqualTo(6 * 10);
        assertThat(bound).isEqualTo(366);
    }
}
