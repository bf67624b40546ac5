// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SflowAgentKeyTest {

    @ParameterizedTest
    @CsvSource({"sflow-pmacct-rate1.pcap.gz, 192.0.2.1, 1", "sflow-ovs-rate10.pcap, 192.0.2.2, 0"})
    void theKeyOfEveryRealDatagramIsItsAgentAndSubAgent(String file, String agent, long sub)
            throws Exception {
        SflowAgentKey expected = new SflowAgentKey(IpAddress.parse(agent), sub);
        for (CaptureDatagrams.Datagram d : CaptureDatagrams.datagrams(file)) {
            ByteBuffer b = d.buffer();
            byte[] key = SflowAgentKey.encodeFromHeader(b);
            assertThat(key).isEqualTo(expected.encode());
            assertThat(SflowAgentKey.decode(key)).isEqualTo(expected);
            assertThat(b.position()).isZero();
        }
    }

    @Test
    void ipv6AndUnknownAgentsAndTheUpperSubAgentRange() {
        SflowAgentKey v6 = new SflowAgentKey(IpAddress.parse("2001:db8::7"), 0xffff_ffffL);
        assertThat(SflowAgentKey.decode(v6.encode())).isEqualTo(v6);
        ByteBuffer header = ByteBuffer.allocate(40).putInt(5).putInt(2);
        header.put(IpAddress.parse("2001:db8::7").toBytes16()).putInt(-1).flip();
        header.limit(40);
        assertThat(SflowAgentKey.encodeFromHeader(header)).isEqualTo(v6.encode());

        ByteBuffer unknown = ByteBuffer.allocate(24).putInt(5).putInt(0).putInt(3);
        unknown.clear();
        assertThat(SflowAgentKey.decode(SflowAgentKey.encodeFromHeader(unknown)))
                .isEqualTo(new SflowAgentKey(IpAddress.UNSPECIFIED, 3));
        assertThat(v6.toString()).isEqualTo("2001:db8::7/4294967295");
    }

    @Test
    void wrongSizesAndUncheckedHeadersAreRefused() {
        assertThatThrownBy(() -> SflowAgentKey.decode(new byte[ExporterPartitionKey.SIZE]))
                .isInstanceOf(MalformedEnvelopeException.class)
                .hasMessageContaining("expected: 20");
        assertThatThrownBy(
                        () ->
                                SflowAgentKey.encodeFromHeader(
                                        ByteBuffer.wrap(new byte[] {0, 0, 0, 5, 0, 0, 0, 9})))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SflowAgentKey(IpAddress.UNSPECIFIED, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
