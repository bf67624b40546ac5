// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.flow.IpAddress;
import java.util.Arrays;
import java.util.Objects;

/**
 * One UDP datagram as the capture agent received it: the value of a record on topic {@code
 * flows.raw}. The wire form is protobuf message {@code flowhouse.v1.RawDatagram} ({@code
 * src/main/proto/flowhouse/v1/raw.proto}), written and read by {@link RawDatagramCodec}.
 *
 * @param schemaVersion envelope schema version, {@link #SCHEMA_VERSION} for this layout
 * @param exporter datagram source address (IPv4 mapped into IPv6) and port: the exporter, which is
 *     also the record's Kafka key ({@link ExporterPartitionKey})
 * @param receivedMillis receive time at the agent, UNIX epoch milliseconds
 * @param agentId identity of the receiving agent
 * @param payload the UDP payload, untouched
 */
public record RawDatagram(
        int schemaVersion,
        ExporterKey exporter,
        long receivedMillis,
        String agentId,
        byte[] payload) {

    /** The envelope layout this code writes. */
    public static final int SCHEMA_VERSION = 1;

    public RawDatagram {
        Objects.requireNonNull(exporter, "exporter");
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(payload, "payload");
    }

    /** A datagram in the current schema version. */
    public static RawDatagram of(
            IpAddress exporterAddress,
            int exporterPort,
            long receivedMillis,
            String agentId,
            byte[] payload) {
        return of(new ExporterKey(exporterAddress, exporterPort), receivedMillis, agentId, payload);
    }

    /** A datagram in the current schema version. */
    public static RawDatagram of(
            ExporterKey exporter, long receivedMillis, String agentId, byte[] payload) {
        return new RawDatagram(SCHEMA_VERSION, exporter, receivedMillis, agentId, payload);
    }

    /** The exporter's address. */
    public IpAddress exporterAddress() {
        return exporter.address();
    }

    /** The exporter's UDP source port (uint16). */
    public int exporterPort() {
        return exporter.port();
    }

    /** The Kafka key of this datagram: its exporter. */
    public byte[] partitionKey() {
        return ExporterPartitionKey.encode(exporter);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof RawDatagram other)) {
            return false;
        }
        return schemaVersion == other.schemaVersion
                && receivedMillis == other.receivedMillis
                && exporter.equals(other.exporter)
                && agentId.equals(other.agentId)
                && Arrays.equals(payload, other.payload);
    }

    @Override
    public int hashCode() {
        int h = Objects.hash(schemaVersion, exporter, receivedMillis, agentId);
        return 31 * h + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "RawDatagram[v"
                + schemaVersion
                + " "
                + exporter
                + " at "
                + receivedMillis
                + " agent "
                + agentId
                + ", "
                + payload.length
                + " bytes]";
    }
}
