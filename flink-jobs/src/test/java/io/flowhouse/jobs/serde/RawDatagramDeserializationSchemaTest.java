// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.serde;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.SflowAgentKey;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The Kafka key and the envelope name one exporter, or the record is skipped. */
class RawDatagramDeserializationSchemaTest {

    private static final ExporterKey EXPORTER = new ExporterKey(IpAddress.parse("192.0.2.9"), 2055);
    private static final RawDatagram DATAGRAM =
            RawDatagram.of(EXPORTER, 1_000L, "agent", new byte[] {0, 9});

    /** An sFlow v5 header with no samples: agent 192.0.2.1, sub-agent 3. */
    private static final RawDatagram SFLOW =
            RawDatagram.of(
                    EXPORTER,
                    1_000L,
                    "agent",
                    ByteBuffer.allocate(28)
                            .putInt(5)
                            .putInt(1)
                            .put(new byte[] {(byte) 192, 0, 2, 1})
                            .putInt(3)
                            .array());

    private static List<RawDatagram> read(byte[] key) {
        return read(key, DATAGRAM);
    }

    private static List<RawDatagram> read(byte[] key, RawDatagram datagram) {
        return readValue(key, RawDatagramCodec.encode(datagram));
    }

    private static List<RawDatagram> readValue(byte[] key, byte[] value) {
        List<RawDatagram> out = new ArrayList<>();
        new RawDatagramDeserializationSchema()
                .deserialize(
                        new ConsumerRecord<>("flows.raw", 0, 0L, key, value),
                        new Collector<>() {
                            @Override
                            public void collect(RawDatagram d) {
                                out.add(d);
                            }

                            @Override
                            public void close() {}
                        });
        return out;
    }

    @Test
    void aBatchRecordGivesItsDatagramsInOrderAndSkipsOnlyAnotherExportersOne() {
        List<RawDatagram> batch = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            batch.add(
                    RawDatagram.stamped(
                            EXPORTER,
                            1_000L + i,
                            "agent",
                            new byte[] {0, 9, (byte) i},
                            new io.flowhouse.codec.envelope.DatagramStamp(1, 2, i)));
        }
        byte[] key = ExporterPartitionKey.encode(EXPORTER);
        assertThat(readValue(key, RawDatagramCodec.encodeBatch(batch)))
                .containsExactlyElementsOf(batch);
        List<RawDatagram> mixed = new ArrayList<>(batch);
        mixed.add(
                1,
                RawDatagram.stamped(
                        new ExporterKey(EXPORTER.address(), 2056),
                        1_000L,
                        "agent",
                        new byte[] {0, 9},
                        new io.flowhouse.codec.envelope.DatagramStamp(1, 3, 0)));
        assertThat(readValue(key, RawDatagramCodec.encodeBatch(mixed)))
                .containsExactlyElementsOf(batch);
        assertThat(readValue(key, new byte[] {8, 3})).isEmpty();
    }

    @Test
    void theKeyOfTheEnvelopesExporterIsRead() {
        assertThat(read(ExporterPartitionKey.encode(EXPORTER))).containsExactly(DATAGRAM);
        assertThat(read(null)).containsExactly(DATAGRAM);
        assertThat(read(ExporterPartitionKey.encode(EXPORTER)).get(0).exporter())
                .isEqualTo(EXPORTER);
    }

    @Test
    void sflowIsReadWithItsAgentsKeyOrItsExportersAndSkippedWithAnotherAgents() {
        SflowAgentKey agent = new SflowAgentKey(IpAddress.parse("192.0.2.1"), 3);
        assertThat(read(agent.encode(), SFLOW)).containsExactly(SFLOW);
        assertThat(read(ExporterPartitionKey.encode(EXPORTER), SFLOW)).containsExactly(SFLOW);
        assertThat(read(new SflowAgentKey(agent.agent(), 4).encode(), SFLOW)).isEmpty();
        assertThat(read(agent.encode(), DATAGRAM)).isEmpty();
    }

    @Test
    void aKeyOfAnotherExporterOrAMalformedKeyIsSkipped() {
        assertThat(read(ExporterPartitionKey.encode(new ExporterKey(EXPORTER.address(), 2056))))
                .isEmpty();
        assertThat(read(new byte[3])).isEmpty();
    }
}
