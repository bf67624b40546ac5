// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.testkit.kafka.RawRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The fault rows' raw-topic counting reads batch records datagram by datagram. */
class RawRecordsTest {

    private static final ExporterKey EXPORTER =
            new ExporterKey(IpAddress.parse("127.0.0.1"), 40000);

    private static RawDatagram v5(int seq) {
        return RawDatagram.stamped(
                EXPORTER,
                1_700_000_000_000L + seq,
                "a",
                FaultSupport.v5(seq),
                new DatagramStamp(1, 0, seq));
    }

    private static ConsumerRecord<byte[], byte[]> record(long offset, byte[] value) {
        return new ConsumerRecord<>("flows.raw", 0, offset, null, value);
    }

    /** Datagrams 0..9: one alone, a batch of six, one alone, a batch of two. */
    private static List<ConsumerRecord<byte[], byte[]>> mixed() {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        out.add(record(0, RawDatagramCodec.encode(v5(0))));
        List<RawDatagram> six = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            six.add(v5(i));
        }
        out.add(record(1, RawDatagramCodec.encodeBatch(six)));
        out.add(record(2, RawDatagramCodec.encode(v5(7))));
        out.add(record(3, RawDatagramCodec.encodeBatch(List.of(v5(8), v5(9)))));
        return out;
    }

    @Test
    void batchesAreSplitInOrder() {
        List<RawDatagram> got = RawRecords.datagrams(mixed());
        assertThat(got).hasSize(10);
        for (int i = 0; i < 10; i++) {
            assertThat(got.get(i).stamp().sequence()).isEqualTo(i);
            assertThat(FaultSupport.seqOf(got.get(i).payload())).isEqualTo(i);
        }
    }

    @Test
    void theStopConditionCountsDatagramsNotRecords() {
        List<ConsumerRecord<byte[], byte[]>> all = mixed();
        Predicate<List<ConsumerRecord<byte[], byte[]>>> enough = RawRecords.atLeast(8);
        List<ConsumerRecord<byte[], byte[]>> read = new ArrayList<>();
        assertThat(enough.test(read)).isFalse();
        read.add(all.get(0));
        read.add(all.get(1));
        assertThat(enough.test(read)).as("7 datagrams in 2 records").isFalse();
        read.add(all.get(2));
        assertThat(enough.test(read)).as("8 datagrams in 3 records").isTrue();
        assertThat(RawRecords.atLeast(11).test(all)).isFalse();
        assertThat(RawRecords.atLeast(10).test(all)).isTrue();
    }

    @Test
    void storedTotalsCountEveryDatagramOfABatch() {
        List<ConsumerRecord<byte[], byte[]>> all = new ArrayList<>(mixed());
        // A batch replayed as it is: its datagrams are duplicates, one by one.
        all.add(record(4, all.get(3).value()));
        FaultSupport.Stored s = FaultSupport.Stored.of(all);
        assertThat(s.distinct()).isEqualTo(10);
        assertThat(s.duplicates()).isEqualTo(2);
        long flows = 0;
        for (int i = 0; i < 10; i++) {
            flows += FaultSupport.flowsOf(FaultSupport.v5(i));
        }
        assertThat(s.flows()).isEqualTo(flows);
    }
}
