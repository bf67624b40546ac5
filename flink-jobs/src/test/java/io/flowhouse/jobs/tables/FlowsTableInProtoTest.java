// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.tables;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import io.flowhouse.schema.v1.Flow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The published {@code flowhouse.v1.Flow} carries every column the job writes to {@code flows}: a
 * new column without its field fails here (add the field with a new number and to the encoder).
 */
class FlowsTableInProtoTest {

    /** Columns whose field has another name: the unit suffix, or a clearer word. */
    private static final Map<String, String> RENAMED =
            Map.of(
                    "exporter", "exporter_address",
                    "time_received", "time_received_ms",
                    "flow_start", "flow_start_ms",
                    "flow_end", "flow_end_ms",
                    "export_time", "export_time_ms",
                    "exported_flow_start", "exported_flow_start_ms",
                    "exported_flow_end", "exported_flow_end_ms");

    @Test
    void everyColumnOfFlowsHasItsField() {
        Set<String> fields =
                Flow.getDescriptor().getFields().stream()
                        .map(FieldDescriptor::getName)
                        .collect(Collectors.toSet());
        List<String> missing = new ArrayList<>();
        for (String column : FlowRowEncoder.COLUMNS) {
            if (!fields.contains(RENAMED.getOrDefault(column, column))) {
                missing.add(column);
            }
        }
        assertThat(missing).as("columns of flows without a field in flowhouse.v1.Flow").isEmpty();
    }
}
