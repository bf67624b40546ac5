// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.sflow;

/** {@code extended_switch} (flow record 0:1001): 802.1Q VLAN and 802.1p priority, in and out. */
final class ExtendedSwitch {

    static final int FORMAT = 1001;

    /** src_vlan, src_priority, dst_vlan, dst_priority. */
    static final int SIZE = 16;

    private ExtendedSwitch() {}

    static void read(byte[] b, int at, int len, FlowSampleState s, ProblemTally t) {
        if (len < SIZE) {
            FlowRecords.tooShort(t, FORMAT, len, SIZE);
            return;
        }
        s.hasSwitch = true;
        s.srcVlan = FlowRecords.u16(b, at);
        s.srcPriority = FlowRecords.u8(b, at + 4);
        s.dstVlan = FlowRecords.u16(b, at + 8);
        s.dstPriority = FlowRecords.u8(b, at + 12);
    }
}
