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
 * @param stamp where the datagram entered the pipeline ({@link DatagramStamp}), or null for an
 *     envelope without one (schema version 1)
 */
public record RawDatagram(
        int schemaVersion,
        ExporterKey exporter,
        long receivedMillis,
        String agentId,
        byte[] payload,
        DatagramStamp stamp) {

    /** The envelope layout of a datagram without a stamp. */
    public static final int SCHEMA_VERSION = 1;

    /**
     * The envelope layout this code writes for a stamped datagram: {@link #SCHEMA_VERSION} + stamp.
     */
    public static final int SCHEMA_VERSION_STAMPED = 2;

    /**
     * The envelope layout of a batch record: several stamped datagrams ({@link
     * #SCHEMA_VERSION_STAMPED}) of one partition key in one Kafka record, read with {@link
     * RawDatagramCodec#decodeAll}. Never the version of a single datagram.
     */
    public static final int SCHEMA_VERSION_BATCH = 3;

    public RawDatagram {
        Objects.requireNonNull(exporter, "exporter");
        Objects.requireNonNull(agentId, "agentId");
        Objects.requireNonNull(payload, "payload");
        if ((stamp != null) != (schemaVersion >= SCHEMA_VERSION_STAMPED)) {
            throw new IllegalArgumentException(
                    "schema version "
                            + schemaVersion
                            + (stamp == null ? " without a stamp" : " with a stamp")
                            + " (a stamp comes with version "
                            + SCHEMA_VERSION_STAMPED
                            + " and later)");
        }
    }

    /** A datagram without a stamp (schema version 1). */
    public RawDatagram(
            int schemaVersion,
            ExporterKey exporter,
            long receivedMillis,
            String agentId,
            byte[] payload) {
        this(schemaVersion, exporter, receivedMillis, agentId, payload, null);
    }

    /** A stamped datagram in the current schema version. */
    public static RawDatagram stamped(
            ExporterKey exporter,
            long receivedMillis,
            String agentId,
            byte[] payload,
            DatagramStamp stamp) {
        Objects.requireNonNull(stamp, "stamp");
        return new RawDatagram(
                SCHEMA_VERSION_STAMPED, exporter, receivedMillis, agentId, payload, stamp);
    }

    /**
     * The 64-bit name of the agent stream that carried this datagram ({@link
     * DatagramStamp#streamId}), or 0 when it has no stamp.
     */
    public long streamId() {
        return stamp == null ? 0L : stamp.streamId(agentId);
    }

    /** A datagram without a stamp. */
    public static RawDatagram of(
            IpAddress exporterAddress,
            int exporterPort,
            long receivedMillis,
            String agentId,
            byte[] payload) {
        return of(new ExporterKey(exporterAddress, exporterPort), receivedMillis, agentId, payload);
    }

    /** A datagram without a stamp. */
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
                && Objects.equals(stamp, other.stamp)
                && Arrays.equals(payload, other.payload);
    }

    @Override
    public int hashCode() {
        int h = Objects.hash(schemaVersion, exporter, receivedMillis, agentId, stamp);
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
                + (stamp == null
                        ? ""
                        : " stream "
                                + stamp.epoch()
                                + "/"
                                + stamp.stream()
                                + " #"
                                + stamp.sequence())
                + ", "
                + payload.length
                + " bytes]";
    }
}
