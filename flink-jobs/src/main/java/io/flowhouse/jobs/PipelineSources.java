// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs;

import io.flowhouse.codec.envelope.RawDatagram;
import io.flowhouse.codec.packet.PacketSummary;
import io.flowhouse.jobs.model.ArchivedTemplate;
import org.apache.flink.api.connector.source.Source;

/**
 * Where the pipeline's inputs come from. Production reads Kafka ({@link
 * PipelineConnectors#sources}); tests pass bounded sources. Each may be null: no raw datagrams (a
 * packets-only reprocessing run), no template archive, or no packets path.
 *
 * @param raw datagrams of {@code flows.raw}
 * @param templates the compacted templates topic, bounded at its end when the job starts
 * @param packets packet summaries of {@code packets.raw}
 */
public record PipelineSources(
        Source<RawDatagram, ?, ?> raw,
        Source<ArchivedTemplate, ?, ?> templates,
        Source<PacketSummary, ?, ?> packets) {

    public PipelineSources withRaw(Source<RawDatagram, ?, ?> s) {
        return new PipelineSources(s, templates, packets);
    }

    public PipelineSources withPackets(Source<PacketSummary, ?, ?> s) {
        return new PipelineSources(raw, templates, s);
    }
}
