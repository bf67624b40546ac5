// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.loadgen.generate.FlowGenerator;
import io.flowhouse.loadgen.profile.TrafficProfile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatedExporterTest {

    private static final long T0 = 1_700_000_000_000L;

    private static List<byte[]> run(ExportProtocol p, long seed, TrafficProfile profile) {
        SimulatedExporter e =
                new SimulatedExporter(2, p, new FlowGenerator(profile, seed), seed, T0);
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            out.add(e.next(T0 + i * 10L).toByteArray());
        }
        return out;
    }

    @Test
    void sameSeedSameBytes() {
        TrafficProfile p =
                TrafficProfile.defaults()
                        .withGapRatio(0.05)
                        .withMalformedRatio(0.05)
                        .withSamplingInterval(10);
        for (ExportProtocol proto : ExportProtocol.values()) {
            List<byte[]> a = run(proto, 17, p);
            List<byte[]> b = run(proto, 17, p);
            List<byte[]> c = run(proto, 18, p);
            for (int i = 0; i < a.size(); i++) {
                assertThat(b.get(i)).isEqualTo(a.get(i));
            }
            assertThat(c.get(5)).isNotEqualTo(a.get(5));
        }
    }

    @Test
    void datagramsStayWithinTheSizeBoundAndTemplatesAreRefreshed() {
        TrafficProfile p =
                TrafficProfile.defaults()
                        .withTemplateRefreshDatagrams(5)
                        .withMaxDatagramBytes(1200);
        for (ExportProtocol proto : List.of(ExportProtocol.V9, ExportProtocol.IPFIX)) {
            SimulatedExporter e = new SimulatedExporter(0, proto, new FlowGenerator(p, 1), 1, T0);
            for (int i = 0; i < 50; i++) {
                ExportDatagram d = e.next(T0 + i);
                assertThat(d.length()).isLessThanOrEqualTo(1200);
                assertThat(d.templateRecords() > 0).isEqualTo(i % 5 == 0);
                assertThat(d.flows()).isNotEmpty();
            }
        }
        SimulatedExporter v5 =
                new SimulatedExporter(0, ExportProtocol.V5, new FlowGenerator(p, 1), 1, T0);
        ExportDatagram d = v5.next(T0);
        assertThat(d.flows()).hasSize(30);
        assertThat(d.length()).isEqualTo(24 + 30 * 48);
        assertThat(v5.sequence()).isEqualTo(30);
        assertThat(v5.domainId()).isZero();
    }
}
