// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import io.flowhouse.schema.v1.Flow;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Test;

/**
 * The evolution rules of {@code flowhouse.v1.Flow}, enforced: every field ever published keeps its
 * number, name and type ({@code flow-v1-fields.txt} lists them and only grows), and numbers are
 * never reused. Adding a field: append its line to that file.
 */
class FlowSchemaEvolutionTest {

    private static List<String> published() throws IOException {
        try (InputStream in =
                Objects.requireNonNull(
                        FlowSchemaEvolutionTest.class.getResourceAsStream("/flow-v1-fields.txt"))) {
            List<String> lines = new ArrayList<>();
            for (String l : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (!l.isBlank() && !l.startsWith("#")) {
                    lines.add(l.strip());
                }
            }
            return lines;
        }
    }

    private static List<String> current() {
        List<String> lines = new ArrayList<>();
        for (FieldDescriptor f : Flow.getDescriptor().getFields()) {
            lines.add(
                    f.getNumber()
                            + " "
                            + f.getName()
                            + " "
                            + f.getType().name().toLowerCase(java.util.Locale.ROOT));
        }
        return lines;
    }

    @Test
    void everyPublishedFieldKeepsItsNumberNameAndType() throws IOException {
        assertThat(current()).containsAll(published());
    }

    @Test
    void everyFieldIsPublishedAndNoNumberIsReused() throws IOException {
        // A new field not yet in the list fails here: add it there, with a new number.
        assertThat(published()).containsExactlyInAnyOrderElementsOf(current());
        assertThat(Flow.getDescriptor().getFields().stream().map(FieldDescriptor::getNumber))
                .doesNotHaveDuplicates();
        assertThat(Flow.getDescriptor().getFullName()).isEqualTo("flowhouse.v1.Flow");
    }

    /** The schema as published before the context fields (80 and up): what old consumers have. */
    private static Descriptor beforeContext() throws Exception {
        FileDescriptorProto file = Flow.getDescriptor().getFile().toProto();
        DescriptorProto.Builder flow = file.getMessageType(0).toBuilder();
        for (int i = flow.getFieldCount() - 1; i >= 0; i--) {
            if (flow.getField(i).getNumber() >= 80) {
                flow.removeField(i);
            }
        }
        FileDescriptorProto old = file.toBuilder().setMessageType(0, flow).build();
        return FileDescriptor.buildFrom(old, new FileDescriptor[0]).findMessageTypeByName("Flow");
    }

    private static Flow enriched() {
        return Flow.newBuilder()
                .setRowId(-5)
                .setExporterAddress(ByteString.copyFrom(new byte[16]))
                .setSrcAs(15_169)
                .setBytes(1_500)
                .setSflowDrops(3)
                .setExporterName("edge1")
                .setInIfName("xe-0/0/1")
                .setInIfSpeed(100_000)
                .setInIfBoundary("external")
                .setSrcCountry("DE")
                .setDstNetTenant("acme")
                .build();
    }

    @Test
    void anOldConsumerReadsEnrichedFlowsAndSkipsTheContext() throws Exception {
        Descriptor old = beforeContext();
        assertThat(old.findFieldByNumber(80)).isNull();
        Flow f = enriched();
        DynamicMessage m = DynamicMessage.parseFrom(old, f.toByteArray());
        assertThat(m.getField(old.findFieldByName("row_id"))).isEqualTo(-5L);
        assertThat(m.getField(old.findFieldByName("src_as"))).isEqualTo(15_169);
        assertThat(m.getField(old.findFieldByName("bytes"))).isEqualTo(1_500L);
        assertThat(m.getField(old.findFieldByName("sflow_drops"))).isEqualTo(3);
        // The context is unknown to it: kept aside, never in the way.
        assertThat(m.getUnknownFields().asMap().keySet())
                .containsExactlyInAnyOrder(80, 85, 87, 88, 97, 108);
    }

    @Test
    void oldBytesReadWithAnEmptyContext() throws Exception {
        Descriptor old = beforeContext();
        DynamicMessage oldFlow =
                DynamicMessage.newBuilder(old)
                        .setField(old.findFieldByName("row_id"), 9L)
                        .setField(old.findFieldByName("src_as"), 64_500)
                        .setField(old.findFieldByName("in_if"), 537)
                        .build();
        Flow f = Flow.parseFrom(oldFlow.toByteArray());
        assertThat(f.getRowId()).isEqualTo(9L);
        assertThat(f.getSrcAs()).isEqualTo(64_500);
        assertThat(f.getInIf()).isEqualTo(537);
        assertThat(f.getExporterName()).isEmpty();
        assertThat(f.getInIfName()).isEmpty();
        assertThat(f.getInIfSpeed()).isZero();
        assertThat(f.getSrcCountry()).isEmpty();
        assertThat(f.getUnknownFields().asMap()).isEmpty();
    }
}
