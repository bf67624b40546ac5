// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.codec.envelope.RejectedDatagram;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.jobs.model.ArchivedTemplate;
import io.flowhouse.jobs.stats.ExporterStats;
import java.util.Objects;
import org.apache.flink.api.connector.sink2.Sink;

/**
 * Where the pipeline's outputs go. Production wires ClickHouse and Kafka; tests pass collecting
 * sinks. {@code stats} and {@code templates} may be null (output dropped).
 */
public record PipelineSinks(
        Sink<FlowRecord> flows,
        Sink<ExporterStats> stats,
        Sink<RejectedDatagram> rejected,
        Sink<ArchivedTemplate> templates) {

    public PipelineSinks {
        Objects.requireNonNull(flows, "flows");
        Objects.requireNonNull(rejected, "rejected");
    }
}
