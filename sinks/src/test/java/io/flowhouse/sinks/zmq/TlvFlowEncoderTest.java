// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.zmq;

import static org.assertj.core.api.Assertions.assertThat;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class TlvFlowEncoderTest {

    @Test
    void smallestWidthsAndEndOfRecordAsTheReferenceDescribes() {
        byte[] buf = new byte[64];
        int p = TlvFlowEncoder.putUint(buf, 0, 7, 443);
        p = TlvFlowEncoder.putUint(buf, p, 1, 0x1_0000_0000L);
        p = TlvFlowEncoder.putUint(buf, p, 57590, 7);
        p = TlvFlowEncoder.putString(buf, p, 136, "ab");
        // u8 key 7, u16 value 443 | u8 key 1, u64 value | u16 key 57590, u8 value | string
        assertThat(HexFormat.of().formatHex(Arrays.copyOf(buf, p)))
                .isEqualTo(
                        "23"
                                + "07"
                                + "01bb"
                                + "25"
                                + "01"
                                + "0000000100000000"
                                + "32"
                                + "e0f6"
                                + "07"
                                + "2b"
                                + "88"
                                + "0002"
                                + "6162");
    }

    @Test
    void independentDecoderReadsBackEverySyntheticFlow() {
        List<FlowRecord> flows = ZmqFlows.synthetic(5_000, 42);
        byte[] buf = new byte[flows.size() * TlvFlowEncoder.MAX_RECORD_BYTES];
        int p = TlvFlowEncoder.writeBufferHeader(buf, 0);
        for (FlowRecord f : flows) {
            int before = p;
            p = TlvFlowEncoder.encode(f, buf, p);
            assertThat(p - before).isLessThanOrEqualTo(TlvFlowEncoder.MAX_RECORD_BYTES);
        }
        List<NtopngWireDecoder.TlvRecord> records = NtopngWireDecoder.tlv(Arrays.copyOf(buf, p));
        assertThat(records).hasSize(flows.size());
        for (int i = 0; i < flows.size(); i++) {
            assertThat(ZmqFlows.fromTlv(records.get(i)))
                    .as("flow %d", i)
                    .isEqualTo(ZmqFlows.project(flows.get(i)));
        }
    }

    @Test
    void ntopngStringFieldsAreText() {
        FlowRecord f =
                FlowRecord.builder()
                        .ipVersion(4)
                        .srcAddr(IpAddress.parse("10.0.0.1"))
                        .dstAddr(IpAddress.parse("10.0.0.2"))
                        .exporterAddress(IpAddress.parse("127.0.0.1"))
                        .srcMac(0x0011_2233_4455L)
                        .flowEndReason(3)
                        .build();
        byte[] buf = new byte[TlvFlowEncoder.MAX_RECORD_BYTES + 2];
        int p = TlvFlowEncoder.encode(f, buf, TlvFlowEncoder.writeBufferHeader(buf, 0));
        NtopngWireDecoder.TlvRecord r = NtopngWireDecoder.tlv(Arrays.copyOf(buf, p)).get(0);
        assertThat(r.string(130)).isEqualTo("127.0.0.1");
        assertThat(r.string(56)).isEqualTo("00:11:22:33:44:55");
        assertThat(r.string(136)).isEqualTo("end of flow");
        assertThat(r.uint(8)).isEqualTo(0x0a000001L);
        assertThat(r.items()).doesNotContainKeys(59, 61, 62, 15);
    }

    @Test
    void headerLayoutMatchesZmqMsgHdrV3() {
        byte[] h = new byte[ZmqMessageHeader.SIZE];
        ZmqMessageHeader.write(h, "flow", ZmqMessageHeader.FLAG_TLV, 0x010203, 0x0a0b0c0dL, 7);
        assertThat(HexFormat.of().formatHex(h))
                .isEqualTo(
                        "666c6f77000000000000000000000000"
                                + "0402"
                                + "0000"
                                + "03020100"
                                + "03020100"
                                + "0a0b0c0d"
                                + "07000000");
        NtopngWireDecoder.Header d = NtopngWireDecoder.header(h);
        assertThat(d)
                .isEqualTo(
                        new NtopngWireDecoder.Header(
                                "flow", 4, 2, 0x010203, 0x010203, 0x0a0b0c0dL, 7));
    }
}
