// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.kafka;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The datagrams of {@code flows.raw} records, whatever their envelope: a batch record holds several
 * datagrams of one exporter, so the fault rows count what reached Kafka datagram by datagram, never
 * record by record.
 */
public final class RawRecords {

    private RawRecords() {}

    /** Every datagram of {@code records}, in their order, each batch split in its own order. */
    public static List<RawDatagram> datagrams(List<ConsumerRecord<byte[], byte[]>> records) {
        List<RawDatagram> out = new ArrayList<>(records.size());
        for (ConsumerRecord<byte[], byte[]> r : records) {
            out.addAll(RawDatagramCodec.decodeAll(r.value()));
        }
        return out;
    }

    /**
     * A {@link TopicReader} stop condition: true once the records read hold at least {@code floor}
     * datagrams. It decodes each record once, however often it is asked, so reading a large topic
     * stays linear.
     */
    public static Predicate<List<ConsumerRecord<byte[], byte[]>>> atLeast(long floor) {
        return new Predicate<>() {
            private int seen;
            private long datagrams;

            @Override
            public boolean test(List<ConsumerRecord<byte[], byte[]>> got) {
                for (; seen < got.size(); seen++) {
                    datagrams += RawDatagramCodec.decodeAll(got.get(seen).value()).size();
                }
                return datagrams >= floor;
            }
        };
    }

    /**
     * Reads {@code topic} from its beginning until it holds {@code floor} datagrams (or timeout).
     */
    public static List<ConsumerRecord<byte[], byte[]>> read(
            Map<String, String> client, String topic, Duration timeout, long floor) {
        return TopicReader.readAll(client, topic, timeout, atLeast(floor));
    }

    /** {@link #read(Map, String, Duration, long)} with only a bootstrap address. */
    public static List<ConsumerRecord<byte[], byte[]>> read(
            String bootstrap, String topic, Duration timeout, long floor) {
        return TopicReader.readAll(bootstrap, topic, timeout, atLeast(floor));
    }
}
