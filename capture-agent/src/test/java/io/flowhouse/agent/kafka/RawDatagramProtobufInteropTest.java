// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.envelope.DatagramStamp;
import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.envelope.RawDatagramCodec;
import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The hand-written envelope codec against protobuf-java itself: messages built from the schema in
 * {@code raw.proto} parse as ours and ours parse as theirs, field for field.
 */
class RawDatagramProtobufInteropTest {

    private static final Descriptor RAW;
    private static final Descriptor REJECTED;
    private static final Descriptor BATCH;

    static {
        DescriptorProto.Builder raw = DescriptorProto.newBuilder().setName("RawDatagram");
        addFields(raw);
        DescriptorProto.Builder rejected = DescriptorProto.newBuilder().setName("RejectedDatagram");
        addFields(rejected);
        rejected.addField(field("reject_reason", 14, FieldDescriptorProto.Type.TYPE_STRING));
        rejected.addField(field("reject_detail", 15, FieldDescriptorProto.Type.TYPE_STRING));
        DescriptorProto.Builder batch = DescriptorProto.newBuilder().setName("RawDatagramBatch");
        batch.addField(field("schema_version", 1, FieldDescriptorProto.Type.TYPE_UINT32));
        batch.addField(
                FieldDescriptorProto.newBuilder()
                        .setName("datagrams")
                        .setNumber(10)
                        .setType(FieldDescriptorProto.Type.TYPE_MESSAGE)
                        .setTypeName(".flowhouse.v1.RawDatagram")
                        .setLabel(FieldDescriptorProto.Label.LABEL_REPEATED)
                        .build());
        FileDescriptorProto file =
                FileDescriptorProto.newBuilder()
                        .setName("flowhouse/v1/raw.proto")
                        .setPackage("flowhouse.v1")
                        .setSyntax("proto3")
                        .addMessageType(raw)
                        .addMessageType(rejected)
                        .addMessageType(batch)
                        .build();
        try {
            FileDescriptor fd = FileDescriptor.buildFrom(file, new FileDescriptor[0]);
            RAW = fd.findMessageTypeByName("RawDatagram");
            REJECTED = fd.findMessageTypeByName("RejectedDatagram");
            BATCH = fd.findMessageTypeByName("RawDatagramBatch");
        } catch (com.google.protobuf.Descriptors.DescriptorValidationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static void addFields(DescriptorProto.Builder m) {
        m.addField(field("schema_version", 1, FieldDescriptorProto.Type.TYPE_UINT32));
        m.addField(field("exporter_address", 2, FieldDescriptorProto.Type.TYPE_BYTES));
        m.addField(field("exporter_port", 3, FieldDescriptorProto.Type.TYPE_UINT32));
        m.addField(field("received_millis", 4, FieldDescriptorProto.Type.TYPE_INT64));
        m.addField(field("agent_id", 5, FieldDescriptorProto.Type.TYPE_STRING));
        m.addField(field("payload", 6, FieldDescriptorProto.Type.TYPE_BYTES));
        m.addField(field("stamp_epoch", 7, FieldDescriptorProto.Type.TYPE_UINT64));
        m.addField(field("stamp_stream", 8, FieldDescriptorProto.Type.TYPE_UINT64));
        m.addField(field("stamp_sequence", 9, FieldDescriptorProto.Type.TYPE_UINT64));
    }

    private static FieldDescriptorProto field(
            String name, int number, FieldDescriptorProto.Type t) {
        return FieldDescriptorProto.newBuilder()
                .setName(name)
                .setNumber(number)
                .setType(t)
                .setLabel(FieldDescriptorProto.Label.LABEL_OPTIONAL)
                .build();
    }

    @Test
    void checkedInProtoDeclaresTheSameFields() throws Exception {
        Path proto = Path.of("../netflow-codec/src/main/proto/flowhouse/v1/raw.proto");
        String text = Files.readString(proto);
        for (String f :
                new String[] {
                    "uint32 schema_version = 1;",
                    "bytes exporter_address = 2;",
                    "uint32 exporter_port = 3;",
                    "int64 received_millis = 4;",
                    "string agent_id = 5;",
                    "bytes payload = 6;",
                    "uint64 stamp_epoch = 7;",
                    "uint64 stamp_stream = 8;",
                    "uint64 stamp_sequence = 9;",
                    "string reject_reason = 14;",
                    "string reject_detail = 15;",
                    "message RawDatagramBatch {",
                    "repeated RawDatagram datagrams = 10;"
                }) {
            assertThat(text).contains(f);
        }
    }

    @Test
    void aBatchRecordIsARawDatagramBatchForProtobufJava() throws Exception {
        Random random = new Random(5);
        List<RawDatagram> in = new java.util.ArrayList<>();
        for (int i = 0; i < 20; i++) {
            byte[] payload = new byte[random.nextInt(1500)];
            random.nextBytes(payload);
            in.add(
                    RawDatagram.stamped(
                            new ExporterKey(IpAddress.ofIpv4(random.nextInt()), 6343),
                            random.nextLong() & Long.MAX_VALUE,
                            "agent",
                            payload,
                            new DatagramStamp(random.nextLong(), 1, i)));
        }
        byte[] ours = RawDatagramCodec.encodeBatch(in);
        DynamicMessage m = DynamicMessage.parseFrom(BATCH, ours);
        assertThat(m.getField(BATCH.findFieldByName("schema_version"))).isEqualTo(3);
        FieldDescriptor datagrams = BATCH.findFieldByName("datagrams");
        assertThat(m.getRepeatedFieldCount(datagrams)).isEqualTo(in.size());
        for (int i = 0; i < in.size(); i++) {
            byte[] theirs = ((DynamicMessage) m.getRepeatedField(datagrams, i)).toByteArray();
            assertThat(RawDatagramCodec.decode(theirs)).isEqualTo(in.get(i));
        }
        assertThat(m.toByteArray()).isEqualTo(ours);
        assertThat(RawDatagramCodec.decodeAll(m.toByteArray())).containsExactlyElementsOf(in);
    }

    @Test
    void oursParsesWithProtobufJavaAndBack() throws Exception {
        Random random = new Random(3);
        for (int i = 0; i < 500; i++) {
            byte[] payload = new byte[random.nextInt(3000)];
            random.nextBytes(payload);
            IpAddress addr =
                    random.nextBoolean()
                            ? IpAddress.ofIpv4(random.nextInt())
                            : new IpAddress(random.nextLong(), random.nextLong());
            ExporterKey exporter = new ExporterKey(addr, random.nextInt(65536));
            long millis = random.nextLong() & Long.MAX_VALUE;
            String agent = "agent-" + i + "-é";
            // Every other one stamped, with zeros and full 64-bit values among them.
            DatagramStamp stamp =
                    i % 2 == 0
                            ? null
                            : new DatagramStamp(
                                    i % 3 == 0 ? 0 : random.nextLong(),
                                    random.nextInt(4),
                                    i % 5 == 0 ? 0 : random.nextLong());
            RawDatagram d =
                    stamp == null
                            ? RawDatagram.of(exporter, millis, agent, payload)
                            : RawDatagram.stamped(exporter, millis, agent, payload, stamp);
            DynamicMessage m = DynamicMessage.parseFrom(RAW, RawDatagramCodec.encode(d));
            assertThat(m.getField(RAW.findFieldByName("schema_version")))
                    .isEqualTo(stamp == null ? 1 : 2);
            if (stamp != null) {
                assertThat(m.getField(RAW.findFieldByName("stamp_epoch"))).isEqualTo(stamp.epoch());
                assertThat(m.getField(RAW.findFieldByName("stamp_stream")))
                        .isEqualTo(stamp.stream());
                assertThat(m.getField(RAW.findFieldByName("stamp_sequence")))
                        .isEqualTo(stamp.sequence());
            }
            assertThat(
                            ((ByteString) m.getField(RAW.findFieldByName("exporter_address")))
                                    .toByteArray())
                    .isEqualTo(addr.toBytes16());
            assertThat(m.getField(RAW.findFieldByName("exporter_port")))
                    .isEqualTo(d.exporterPort());
            assertThat(m.getField(RAW.findFieldByName("received_millis")))
                    .isEqualTo(d.receivedMillis());
            assertThat(m.getField(RAW.findFieldByName("agent_id"))).isEqualTo(d.agentId());
            assertThat(((ByteString) m.getField(RAW.findFieldByName("payload"))).toByteArray())
                    .isEqualTo(payload);
            // Same bytes both ways: protobuf-java writes fields in number order, as we do.
            assertThat(m.toByteArray()).isEqualTo(RawDatagramCodec.encode(d));
            assertThat(RawDatagramCodec.decode(m.toByteArray())).isEqualTo(d);
        }
    }

    @Test
    void rejectedParsesWithProtobufJava() throws Exception {
        RawDatagram d = RawDatagram.of(IpAddress.parse("192.0.2.1"), 9, 10L, "a", new byte[] {1});
        byte[] ours =
                RawDatagramCodec.encodeRejected(
                        new RejectedDatagram(d, "LENGTH_MISMATCH", "length 99, datagram 1 bytes"));
        DynamicMessage m = DynamicMessage.parseFrom(REJECTED, ours);
        assertThat(m.getField(REJECTED.findFieldByName("reject_reason")))
                .isEqualTo("LENGTH_MISMATCH");
        assertThat(m.getField(REJECTED.findFieldByName("reject_detail")))
                .isEqualTo("length 99, datagram 1 bytes");
        // A RawDatagram reader (protobuf-java) skips the reject fields as unknown.
        DynamicMessage asRaw = DynamicMessage.parseFrom(RAW, ours);
        assertThat(asRaw.getField(RAW.findFieldByName("exporter_port"))).isEqualTo(9);
    }
}
