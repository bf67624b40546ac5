// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.pcap;

import java.nio.ByteBuffer;

/**
 * One captured packet.
 *
 * @param timestampNanos capture time, epoch nanoseconds
 * @param linkType link-layer header type (LINKTYPE_*, e.g. 1 for Ethernet)
 * @param originalLength the packet's length on the wire (may exceed the captured bytes)
 * @param data the captured bytes, big-endian, read-only; valid until the reader is closed
 */
public record PcapPacket(long timestampNanos, int linkType, int originalLength, ByteBuffer data) {}
