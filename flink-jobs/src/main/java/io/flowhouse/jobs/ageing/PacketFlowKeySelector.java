// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.ageing;

import io.flowhouse.codec.packet.FlowHash;
import io.flowhouse.codec.packet.PacketSummary;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * Keys packets by {@link PacketFlowKey}: per direction (uniflows) or order-independent (biflows).
 */
public final class PacketFlowKeySelector implements KeySelector<PacketSummary, PacketFlowKey> {

    private static final long serialVersionUID = 1L;

    private final boolean biflow;

    public PacketFlowKeySelector(boolean biflow) {
        this.biflow = biflow;
    }

    @Override
    public PacketFlowKey getKey(PacketSummary p) {
        return of(p, biflow);
    }

    public static PacketFlowKey of(PacketSummary p, boolean biflow) {
        int vlans = FlowHash.vlanKey(p.outerVlan() & 0xfff, p.innerVlan() & 0xfff);
        long sHi = p.srcAddr().hi();
        long sLo = p.srcAddr().lo();
        long dHi = p.dstAddr().hi();
        long dLo = p.dstAddr().lo();
        int sPort = p.srcPort();
        int dPort = p.dstPort();
        if (!biflow) {
            return new PacketFlowKey(
                    sHi,
                    sLo,
                    dHi,
                    dLo,
                    (sPort << 16) | dPort,
                    p.protocol(),
                    vlans,
                    p.interfaceIndex());
        }
        if (PacketFlowKey.portless(p.protocol())) {
            sPort = 0;
            dPort = 0;
        }
        if (sourceIsA(sHi, sLo, sPort, dHi, dLo, dPort)) {
            return new PacketFlowKey(
                    sHi,
                    sLo,
                    dHi,
                    dLo,
                    (sPort << 16) | dPort,
                    p.protocol(),
                    vlans,
                    p.interfaceIndex());
        }
        return new PacketFlowKey(
                dHi, dLo, sHi, sLo, (dPort << 16) | sPort, p.protocol(), vlans, p.interfaceIndex());
    }

    /** Whether the packet's source is endpoint A of the biflow key: the smaller endpoint. */
    static boolean sourceIsA(long sHi, long sLo, int sPort, long dHi, long dLo, int dPort) {
        int c = Long.compareUnsigned(sHi, dHi);
        if (c == 0) {
            c = Long.compareUnsigned(sLo, dLo);
        }
        if (c == 0) {
            c = Integer.compare(sPort, dPort);
        }
        return c <= 0;
    }
}
