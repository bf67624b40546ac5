// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.pcap;

import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;

/**
 * A UDP datagram found in a captured frame.
 *
 * @param timestampNanos capture time, epoch ns
 * @param src source address
 * @param srcPort source port (uint16)
 * @param dst destination address
 * @param dstPort destination port (uint16)
 * @param payload the UDP payload, big-endian, a view into the frame
 */
public record UdpDatagram(
        long timestampNanos,
        IpAddress src,
        int srcPort,
        IpAddress dst,
        int dstPort,
        ByteBuffer payload) {}
