// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.SequenceTracker.Outcome;
import io.flowhouse.codec.SequenceTracker.StreamKey;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.util.List;
import org.junit.jupiter.api.Test;

class SequenceTrackerTest {

    private static final StreamKey K = new StreamKey(CaptureDatagrams.localhost(4739), 10, 1);

    @Test
    void countsGapsLateArrivalsAndResets() {
        SequenceTracker t = new SequenceTracker();
        assertThat(t.observe(K, 100, 10).outcome()).isEqualTo(Outcome.FIRST);
        assertThat(t.observe(K, 110, 5).outcome()).isEqualTo(Outcome.IN_ORDER);
        SequenceTracker.Observation gap = t.observe(K, 125, 5); // 115..124 missing
        assertThat(gap.outcome()).isEqualTo(Outcome.GAP);
        assertThat(gap.missing()).isEqualTo(10);
        assertThat(t.observe(K, 115, 10).outcome()).isEqualTo(Outcome.LATE); // they arrive late
        assertThat(t.stats(K).lostUnits()).isZero();
        assertThat(t.observe(K, 0x8000_0000L, 1).outcome()).isEqualTo(Outcome.RESET);
        assertThat(t.observe(K, 0x8000_0001L, 1).outcome()).isEqualTo(Outcome.IN_ORDER);
        SequenceTracker.Stats s = t.stats(K);
        assertThat(s.datagrams()).isEqualTo(6);
        assertThat(s.gaps()).isEqualTo(1);
        assertThat(s.late()).isEqualTo(1);
        assertThat(s.resets()).isEqualTo(1);
    }

    @Test
    void stepIsTheRuleAsAPureFunction() {
        long window = SequenceTracker.RESET_THRESHOLD;
        assertThat(SequenceTracker.step(-1, 100, 10, window))
                .isEqualTo(new SequenceTracker.Step(Outcome.FIRST, 0, 110));
        assertThat(SequenceTracker.step(110, 125, 5, window))
                .isEqualTo(new SequenceTracker.Step(Outcome.GAP, 15, 130));
        // A step back: late within the window (the expected number stays), else a restart.
        assertThat(SequenceTracker.step(130, 115, 10, window))
                .isEqualTo(new SequenceTracker.Step(Outcome.LATE, 0, 130));
        assertThat(SequenceTracker.step(130, 115, 10, 0))
                .isEqualTo(new SequenceTracker.Step(Outcome.RESET, 0, 125));
        // A jump of RESET_THRESHOLD or more is a restart, not loss.
        assertThat(SequenceTracker.step(0, SequenceTracker.RESET_THRESHOLD, 1, window).outcome())
                .isEqualTo(Outcome.RESET);
        // Unknown length: nothing is expected next, so the next datagram only resynchronises.
        assertThat(SequenceTracker.step(0xffff_fffeL, 0xffff_fffeL, -1, window))
                .isEqualTo(new SequenceTracker.Step(Outcome.IN_ORDER, 0, -1));
        assertThat(SequenceTracker.step(0xffff_fffeL, 0xffff_fffeL, 3, window).expectedNext())
                .isEqualTo(1);
    }

    @Test
    void wrapsAt32Bits() {
        SequenceTracker t = new SequenceTracker();
        t.observe(K, 0xffff_fffeL, 3);
        assertThat(t.observe(K, 1, 1).outcome()).isEqualTo(Outcome.IN_ORDER);
        assertThat(t.observe(K, 4, 1).missing()).isEqualTo(2);
    }

    @Test
    void realCapturesWithoutLossShowNoLoss() throws Exception {
        for (String f :
                List.of(
                        "netflow-v5-softflowd.pcap",
                        "netflow-v9-pmacct.pcap",
                        "ipfix-pmacct.pcap")) {
            SequenceTracker t = new SequenceTracker();
            NetflowDecoder d = new NetflowDecoder();
            InMemoryTemplateCache cache = new InMemoryTemplateCache();
            for (CaptureDatagrams.Datagram g : CaptureDatagrams.datagrams(f)) {
                t.observe(g.exporter(), d.decode(g.buffer(), g.context(), cache));
            }
            assertThat(t.totalLost()).as(f).isZero();
            assertThat(t.snapshot()).hasSize(1);
        }
    }

    @Test
    void droppedDatagramShowsAsLoss() throws Exception {
        List<CaptureDatagrams.Datagram> ds =
                CaptureDatagrams.datagrams("netflow-v5-softflowd.pcap");
        SequenceTracker t = new SequenceTracker();
        NetflowDecoder d = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache();
        long dropped = 0;
        for (int i = 0; i < ds.size(); i++) {
            DecodeResult r = d.decode(ds.get(i).buffer(), ds.get(i).context(), cache);
            if (i == 10) {
                dropped = r.records().size();
                continue;
            }
            t.observe(ds.get(i).exporter(), r);
        }
        assertThat(t.totalLost()).isEqualTo(dropped);
    }
}
