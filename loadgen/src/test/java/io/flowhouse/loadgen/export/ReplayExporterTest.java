// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.loadgen.generate.FlowGenerator;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ReplayExporterTest {

    private static final long T0 = 1_700_000_000_000L;

    @Test
    void replayedStreamsAreGapFreeWithFreshHeaders() throws Exception {
        TrafficProfile p =
                TrafficProfile.defaults().withSamplingInterval(4).withTemplateRefreshDatagrams(5);
        for (ExportProtocol proto : ExportProtocol.values()) {
            SimulatedExporter sim = new SimulatedExporter(1, proto, new FlowGenerator(p, 5), 5, T0);
            ReplayExporter replay = new ReplayExporter(sim, 10, T0);
            NetflowDecoder decoder = new NetflowDecoder();
            InMemoryTemplateCache cache = new InMemoryTemplateCache();
            ExporterKey key = new ExporterKey(IpAddress.parse("127.0.0.1"), 30_000);
            long expectedSeq = 0;
            long flows = 0;
            long decoded = 0;
            for (int i = 0; i < 35; i++) {
                long t = T0 + 60_000L + i * 1_000L;
                ExportDatagram d = replay.next(t, Integer.MAX_VALUE);
                // Sent as it is: no copy into a native buffer, the view never moved by a send.
                assertThat(d.payload().isDirect()).isTrue();
                assertThat(d.payload().position()).isZero();
                flows += d.flows().size();
                DecodeResult r =
                        decoder.decode(
                                ByteBuffer.wrap(d.toByteArray()), new DecodeContext(key, 0), cache);
                assertThat(r.problems()).isEmpty();
                assertThat(r.sequenceNumber())
                        .as("%s datagram %d", proto, i)
                        .isEqualTo(expectedSeq);
                if (proto == ExportProtocol.SFLOW) {
                    // sFlow carries no clock: the agent's uptime is the header's time.
                    assertThat(r.sysUptimeMillis()).isEqualTo(t - sim.bootTimeMillis());
                } else {
                    assertThat(r.exportTimeMillis() / 1000).isEqualTo(t / 1000);
                }
                expectedSeq = (expectedSeq + r.sequenceUnits()) & 0xffff_ffffL;
                decoded += r.records().size();
            }
            assertThat(decoded).isEqualTo(flows);
            assertThat(replay.sequence()).isEqualTo(expectedSeq);
        }
    }
}
