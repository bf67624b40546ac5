// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.envelope;

import io.flowhouse.codec.flow.IpAddress;
import java.util.Arrays;
import java.util.Objects;

/**
 * One UDP datagram as the capture agent received it: the value of a record on topic {@code
 * flows.raw}. The wire form is protobuf message {@code flowhouse.v1.RawDatagram} ({@code
 * src/main/proto/flowhouse/v1/raw.proto}), written and read by {@link RawDatagramCodec}.
 *
 * @param schemaVersion envelope schema version, {@link #SCHEMA_VERSION} for this layout
 * @param exporterAddress datagram source address (IPv4 mapped into IPv6)
 * @param exporterPort datagram source port (uint16)
 * @param receivedMillis receive time at the agent, UNIX epoch milliseconds
 * @param agentId identity of the receiving agent
 * @param payload the UDP payload, untouched
 */
public record RawDatagram(
        int schemaVersion,
        IpAddress exporterAddress,
        int exporterPort,
        long receivedMillis,
        String agentId,
        byte[] payload) {

    /** The envelope layout this code writes. */
    public static final int SCHEMA_VERSION = 1;

    public RawDatagram {
        Objects.requireNonNull(exporterAddress, "exporterAddress");
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(payload, "payload");
        if (exporterPort < 0 || exporterPort > 0xffff) {
            throw new IllegalArgumentException(
                    "exporter port " + exporterPort + " (expected: 0..65535)");
        }
    }

    /** A datagram in the current schema version. */
    public static RawDatagram of(
            IpAddress exporterAddress,
            int exporterPort,
            long receivedMillis,
            String agentId,
            byte[] payload) {
        return new RawDatagram(
                SCHEMA_VERSION, exporterAddress, exporterPort, receivedMillis, agentId, payload);
    }

    /** The Kafka key of this datagram: its exporter address and port. */
    public byte[] partitionKey() {
        return ExporterPartitionKey.encode(exporterAddress, exporterPort);
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
                && exporterPort == other.exporterPort
                && receivedMillis == other.receivedMillis
                && exporterAddress.equals(other.exporterAddress)
                && agentId.equals(other.agentId)
                && Arrays.equals(payload, other.payload);
    }

    @Override
    public int hashCode() {
        int h = Objects.hash(schemaVersion, exporterAddress, exporterPort, receivedMillis, agentId);
        return 31 * h + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        return "RawDatagram[v"
                + schemaVersion
                + " "
                + exporterAddress
                + ":"
                + exporterPort
                + " at "
                + receivedMillis
                + " agent "
                + agentId
                + ", "
                + payload.length
                + " bytes]";
    }
}
