// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.stamp;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.agent.kafka.Outbound;
import io.flowhouse.agent.spool.DiskSpool;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A datagram spooled by one run and sent by the next keeps the stamp it was given. */
class StampThroughSpoolTest {

    @Test
    void aReSentDatagramCarriesItsOriginalStampByteForByte(@TempDir Path dir) throws Exception {
        ExporterKey exporter = new ExporterKey(IpAddress.parse("192.0.2.1"), 2055);
        long firstRun = AgentEpoch.next(dir, Clock.systemUTC());
        DatagramStamper stamper = new DatagramStamper(firstRun, 8);
        byte[] value =
                RawDatagramCodec.encode(
                        RawDatagram.stamped(
                                exporter, 1L, "edge", new byte[] {0, 5}, stamper.stamp(exporter)));
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20, 64 * 1024)) {
            spool.append(new Outbound("flows.raw", -1, 1L, null, value, null));
        }
        // The next run: a new epoch, the same spool directory, the old datagram as it was.
        long secondRun = AgentEpoch.next(dir, Clock.systemUTC());
        assertThat(secondRun).isGreaterThan(firstRun);
        try (DiskSpool spool = DiskSpool.open(dir, 1 << 20, 64 * 1024)) {
            List<Outbound> back = spool.peek(10, 1 << 20);
            assertThat(back).hasSize(1);
            assertThat(back.get(0).value()).isEqualTo(value);
            assertThat(RawDatagramCodec.decode(back.get(0).value()).stamp())
                    .isEqualTo(new DatagramStamp(firstRun, 1, 0));
        }
        DatagramStamp fresh = new DatagramStamper(secondRun, 8).stamp(exporter);
        assertThat(fresh.streamId("edge"))
                .isNotEqualTo(new DatagramStamp(firstRun, 1, 0).streamId("edge"));
    }
}
