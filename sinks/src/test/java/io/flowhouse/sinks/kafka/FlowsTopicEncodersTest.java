// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.CodedInputStream;
import io.flowhouse.codec.envelope.ExporterPartitionKey;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.enrich.FlowContext;
import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.Boundary;
import io.flowhouse.enrich.rules.InterfaceContext;
import io.flowhouse.schema.goflow2.FlowMessage;
import io.flowhouse.schema.v1.Flow;
import io.flowhouse.sinks.FlowInput;
import java.io.ByteArrayInputStream;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class FlowsTopicEncodersTest {

    private static final FlowRowIds IDS =
            new FlowRowIds() {
                @Override
                public long low(FlowRecord r) {
                    return 0xfedc_ba98_7654_3210L; // above 2^63: unsigned on the wire
                }

                @Override
                public long high(FlowRecord r) {
                    return 7L;
                }
            };

    private static FlowRecord.Builder record() {
        return FlowRecord.builder()
                .version(10)
                .exporterAddress(IpAddress.parse("192.0.2.7"))
                .exporterPort(40_001)
                .observationDomainId(0xffff_fff0L)
                .sequenceNumber(0xffff_fffeL)
                .position(2, 5)
                .exportTimeMillis(1_705_320_000_000L)
                .timeReceivedMillis(1_705_320_000_123L)
                .flowStartMillis(1_705_319_990_001L)
                .flowEndMillis(1_705_319_999_999L)
                .ipVersion(6)
                .srcAddr(IpAddress.parse("2001:db8::1"))
                .dstAddr(IpAddress.parse("2001:db8::2"))
                .nextHop(IpAddress.parse("2001:db8::fe"))
                .srcPrefixLen(48)
                .dstPrefixLen(64)
                .srcPort(443)
                .dstPort(51_000)
                .protocol(6)
                .tcpFlags(0x1b)
                .tos(0xb8)
                .bytes(123_456_789_012L)
                .packets(98_765)
                .reverseBytes(555)
                .reversePackets(5)
                .inputInterface(0xffff_ffffL)
                .outputInterface(2)
                .vlanId(100)
                .postVlanId(200)
                .srcMac(0x0011_2233_4455L)
                .dstMac(0x66_7788_99aa_bbL)
                .srcAs(4_200_000_000L)
                .dstAs(65_001)
                .direction(-1)
                .flowEndReason(3)
                .exportedTimes(1_600_000_000_001L, 1_600_000_000_999L)
                .samplingRate(1000);
    }

    @Test
    void everyFieldOfTheFlowReadsBackAsTheRecordHadIt() throws Exception {
        FlowRecord r = record().build();
        Flow f = Flow.parseFrom(FlowhouseFlowEncoder.encode(r, IDS));
        assertThat(f.getRowId()).isEqualTo(0xfedc_ba98_7654_3210L);
        assertThat(f.getRowIdHi()).isEqualTo(7L);
        assertThat(f.getExporterAddress().toByteArray())
                .isEqualTo(IpAddress.parse("192.0.2.7").toBytes16())
                .hasSize(16);
        assertThat(f.getExporterPort()).isEqualTo(40_001);
        assertThat(Integer.toUnsignedLong(f.getObservationDomain())).isEqualTo(0xffff_fff0L);
        assertThat(f.getVersion()).isEqualTo(10);
        assertThat(Integer.toUnsignedLong(f.getSequenceNumber())).isEqualTo(0xffff_fffeL);
        assertThat(f.getRecordIndex()).isEqualTo(FlowRecord.position(2, 5)).isEqualTo(0x20005);
        assertThat(f.getTimeReceivedMs()).isEqualTo(1_705_320_000_123L);
        assertThat(f.getFlowStartMs()).isEqualTo(1_705_319_990_001L);
        assertThat(f.getFlowEndMs()).isEqualTo(1_705_319_999_999L);
        assertThat(f.getExportTimeMs()).isEqualTo(1_705_320_000_000L);
        assertThat(f.getIpVersion()).isEqualTo(6);
        assertThat(IpAddress.ofBytes(f.getSrcAddr().toByteArray()))
                .isEqualTo(IpAddress.parse("2001:db8::1"));
        assertThat(IpAddress.ofBytes(f.getDstAddr().toByteArray()))
                .isEqualTo(IpAddress.parse("2001:db8::2"));
        assertThat(IpAddress.ofBytes(f.getNextHop().toByteArray()))
                .isEqualTo(IpAddress.parse("2001:db8::fe"));
        assertThat(f.getSrcPrefixLen()).isEqualTo(48);
        assertThat(f.getDstPrefixLen()).isEqualTo(64);
        assertThat(f.getSrcPort()).isEqualTo(443);
        assertThat(f.getDstPort()).isEqualTo(51_000);
        assertThat(f.getProto()).isEqualTo(6);
        assertThat(f.getTcpFlags()).isEqualTo(0x1b);
        assertThat(f.getTos()).isEqualTo(0xb8);
        assertThat(f.getBytes()).isEqualTo(123_456_789_012L);
        assertThat(f.getPackets()).isEqualTo(98_765L);
        assertThat(f.getReverseBytes()).isEqualTo(555L);
        assertThat(f.getReversePackets()).isEqualTo(5L);
        assertThat(f.getSamplingRate()).isEqualTo(1000L);
        assertThat(Integer.toUnsignedLong(f.getInIf())).isEqualTo(0xffff_ffffL);
        assertThat(f.getOutIf()).isEqualTo(2);
        assertThat(Integer.toUnsignedLong(f.getSrcAs())).isEqualTo(4_200_000_000L);
        assertThat(f.getDstAs()).isEqualTo(65_001);
        assertThat(f.getVlan()).isEqualTo(100);
        assertThat(f.getPostVlan()).isEqualTo(200);
        assertThat(f.getSrcMac()).isEqualTo(0x0011_2233_4455L);
        assertThat(f.getDstMac()).isEqualTo(0x66_7788_99aa_bbL);
        assertThat(f.getDirection()).isEqualTo(-1);
        assertThat(f.getFlowEndReason()).isEqualTo(3);
        assertThat(f.getExportedFlowStartMs()).isEqualTo(1_600_000_000_001L);
        assertThat(f.getExportedFlowEndMs()).isEqualTo(1_600_000_000_999L);
    }

    @Test
    void goflow2MessageIsLengthDelimitedWithGoflow2sConventions() throws Exception {
        FlowRecord r = record().build();
        byte[] value = Goflow2FlowEncoder.encode(r);
        ByteArrayInputStream in = new ByteArrayInputStream(value);
        FlowMessage m = FlowMessage.parseDelimitedFrom(in);
        assertThat(in.available()).as("one message, nothing after it").isZero();
        // The prefix is the varint length of the rest.
        CodedInputStream prefix = CodedInputStream.newInstance(value);
        assertThat(prefix.readRawVarint32()).isEqualTo(m.getSerializedSize());
        assertThat(prefix.getTotalBytesRead() + m.getSerializedSize()).isEqualTo(value.length);
        assertThat(m.getType()).isEqualTo(FlowMessage.FlowType.IPFIX);
        assertThat(m.getTimeReceivedNs()).isEqualTo(1_705_320_000_123_000_000L);
        assertThat(m.getTimeFlowStartNs()).isEqualTo(1_705_319_990_001_000_000L);
        assertThat(m.getTimeFlowEndNs()).isEqualTo(1_705_319_999_999_000_000L);
        assertThat(m.getSamplerAddress().toByteArray()).containsExactly(192, 0, 2, 7);
        assertThat(m.getEtype()).isEqualTo(0x86dd);
        assertThat(m.getSrcAddr().toByteArray()).hasSize(16);
        assertThat(IpAddress.ofBytes(m.getDstAddr().toByteArray()))
                .isEqualTo(IpAddress.parse("2001:db8::2"));
        assertThat(m.getBytes()).isEqualTo(123_456_789_012L);
        assertThat(m.getPackets()).isEqualTo(98_765L);
        assertThat(m.getSamplingRate()).isEqualTo(1000L);
        assertThat(Integer.toUnsignedLong(m.getSequenceNum())).isEqualTo(0xffff_fffeL);
        assertThat(m.getSrcPort()).isEqualTo(443);
        assertThat(m.getDstPort()).isEqualTo(51_000);
        assertThat(m.getProto()).isEqualTo(6);
        assertThat(m.getIpTos()).isEqualTo(0xb8);
        assertThat(m.getTcpFlags()).isEqualTo(0x1b);
        assertThat(m.getSrcVlan()).isEqualTo(100);
        assertThat(m.getDstVlan()).isEqualTo(200);
        assertThat(m.getSrcNet()).isEqualTo(48);
        assertThat(m.getDstNet()).isEqualTo(64);
        assertThat(Integer.toUnsignedLong(m.getSrcAs())).isEqualTo(4_200_000_000L);
        assertThat(m.getSrcMac()).isEqualTo(0x0011_2233_4455L);
        assertThat(Integer.toUnsignedLong(m.getObservationDomainId())).isEqualTo(0xffff_fff0L);
    }

    @Test
    void goflow2TypesAndIpv4AddressesAsGoflow2WritesThem() throws Exception {
        FlowRecord v5 =
                record().version(5)
                        .ipVersion(4)
                        .srcAddr(IpAddress.parse("10.0.0.1"))
                        .dstAddr(IpAddress.parse("10.0.0.2"))
                        .nextHop(IpAddress.UNSPECIFIED)
                        .build();
        FlowMessage m =
                FlowMessage.parseDelimitedFrom(
                        new ByteArrayInputStream(Goflow2FlowEncoder.encode(v5)));
        assertThat(m.getType()).isEqualTo(FlowMessage.FlowType.NETFLOW_V5);
        assertThat(m.getEtype()).isEqualTo(0x0800);
        assertThat(m.getSrcAddr().toByteArray()).containsExactly(10, 0, 0, 1);
        assertThat(m.getNextHop().isEmpty()).isTrue();
        assertThat(Goflow2FlowEncoder.type(9)).isEqualTo(FlowMessage.FlowType.NETFLOW_V9);
        assertThat(Goflow2FlowEncoder.type(FlowRecord.VERSION_SFLOW5))
                .isEqualTo(FlowMessage.FlowType.SFLOW_5);
        assertThat(Goflow2FlowEncoder.type(0)).isEqualTo(FlowMessage.FlowType.FLOWUNKNOWN);
    }

    @Test
    void recordsAreKeyedByExporterAndStampedWithTheReceiveTime() throws Exception {
        FlowRecord r = record().build();
        ProducerRecord<byte[], byte[]> rec =
                FlowsTopicSerializer.ofFlows("flows.decoded", FlowsTopicFormat.FLOWHOUSE, IDS)
                        .serialize(r, null, null);
        assertThat(rec.topic()).isEqualTo("flows.decoded");
        assertThat(rec.partition()).isNull();
        assertThat(rec.timestamp()).isEqualTo(1_705_320_000_123L);
        assertThat(rec.key())
                .isEqualTo(ExporterPartitionKey.encode(IpAddress.parse("192.0.2.7"), 40_001));
        assertThat(Flow.parseFrom(rec.value()).getRowId()).isEqualTo(0xfedc_ba98_7654_3210L);
        ProducerRecord<byte[], byte[]> g =
                FlowsTopicSerializer.ofFlows("t", FlowsTopicFormat.GOFLOW2, IDS)
                        .serialize(r, null, null);
        assertThat(g.value()).isEqualTo(Goflow2FlowEncoder.encode(r));
    }

    @Test
    void aFlowWithContextCarriesItInBothFormatsWhereTheyHaveFields() throws Exception {
        FlowRecord r = record().srcAs(0).dstAs(64_500).build();
        FlowContext c =
                new FlowContext(
                        new Attributes("edge1", "", "", "", ""),
                        new InterfaceContext("xe-0/0/1", "", 0, Boundary.EXTERNAL, "", ""),
                        InterfaceContext.UNKNOWN,
                        "DE",
                        "",
                        15_169,
                        64_500,
                        Attributes.NONE,
                        Attributes.NONE);
        FlowInput<Object[]> pair =
                new FlowInput<>() {
                    @Override
                    public FlowRecord flow(Object[] e) {
                        return (FlowRecord) e[0];
                    }

                    @Override
                    public FlowContext context(Object[] e) {
                        return (FlowContext) e[1];
                    }
                };
        Flow f =
                Flow.parseFrom(
                        new FlowsTopicSerializer<>("t", FlowsTopicFormat.FLOWHOUSE, IDS, pair)
                                .serialize(new Object[] {r, c}, null, null)
                                .value());
        assertThat(f.getSrcAs()).isEqualTo(15_169);
        assertThat(f.getExporterName()).isEqualTo("edge1");
        assertThat(f.getInIfName()).isEqualTo("xe-0/0/1");
        assertThat(f.getInIfBoundary()).isEqualTo("external");
        assertThat(f.getSrcCountry()).isEqualTo("DE");
        // goflow2's FlowMessage has the AS numbers and nothing else of the context.
        FlowMessage m =
                FlowMessage.parseDelimitedFrom(
                        new ByteArrayInputStream(
                                new FlowsTopicSerializer<>("t", FlowsTopicFormat.GOFLOW2, IDS, pair)
                                        .serialize(new Object[] {r, c}, null, null)
                                        .value()));
        assertThat(m.getSrcAs()).isEqualTo(15_169);
        assertThat(m.getDstAs()).isEqualTo(64_500);
        assertThat(m.toBuilder().setSrcAs(0).build()).isEqualTo(Goflow2FlowEncoder.toMessage(r));
    }

    @Test
    void optionsAreCheckedOnce() {
        FlowsTopicOptions d = FlowsTopicOptions.defaults("flows.decoded");
        assertThat(d.delivery()).isEqualTo(FlowsTopicDelivery.EXACTLY_ONCE);
        assertThat(d.format()).isEqualTo(FlowsTopicFormat.FLOWHOUSE);
        assertThatThrownBy(
                        () ->
                                new FlowsTopicOptions(
                                        "t",
                                        FlowsTopicFormat.FLOWHOUSE,
                                        0,
                                        "brotli",
                                        1,
                                        d.linger(),
                                        d.delivery(),
                                        "p",
                                        d.transactionTimeout()))
                .hasMessageContaining("flows-topic.compression = brotli");
        assertThatThrownBy(
                        () ->
                                new FlowsTopicOptions(
                                        " ",
                                        FlowsTopicFormat.FLOWHOUSE,
                                        0,
                                        "lz4",
                                        1,
                                        d.linger(),
                                        d.delivery(),
                                        "p",
                                        d.transactionTimeout()))
                .hasMessageContaining("flows-topic.topic");
    }
}
