// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import io.flowhouse.codec.sflow.EthernetInterfaceCounters;
import io.flowhouse.codec.sflow.GenericInterfaceCounters;
import io.flowhouse.codec.sflow.SflowEncoder;

/**
 * Sums over the sFlow counter samples sent: how many, and each counter's values added up sample by
 * sample (a counter is cumulative, so this is what {@code sum(column)} over the collector's rows of
 * those samples gives). Immutable.
 *
 * @param samples counter samples
 * @param inOctets sum of ifInOctets
 * @param outOctets sum of ifOutOctets
 * @param inPackets sum of ifInUcastPkts
 * @param outPackets sum of ifOutUcastPkts
 * @param inDiscards sum of ifInDiscards
 * @param outDiscards sum of ifOutDiscards
 * @param inErrors sum of ifInErrors
 * @param outErrors sum of ifOutErrors
 * @param fcsErrors sum of dot3StatsFCSErrors
 */
public record CounterTotals(
        long samples,
        long inOctets,
        long outOctets,
        long inPackets,
        long outPackets,
        long inDiscards,
        long outDiscards,
        long inErrors,
        long outErrors,
        long fcsErrors) {

    public static final CounterTotals NONE = new CounterTotals(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** These totals with one more sample. */
    public CounterTotals plus(SflowEncoder.InterfaceSample s) {
        GenericInterfaceCounters g = s.counters();
        EthernetInterfaceCounters e = s.ethernet();
        return new CounterTotals(
                samples + 1,
                inOctets + g.ifInOctets(),
                outOctets + g.ifOutOctets(),
                inPackets + g.ifInUcastPkts(),
                outPackets + g.ifOutUcastPkts(),
                inDiscards + g.ifInDiscards(),
                outDiscards + g.ifOutDiscards(),
                inErrors + g.ifInErrors(),
                outErrors + g.ifOutErrors(),
                fcsErrors + (e == null ? 0 : e.dot3StatsFCSErrors()));
    }

    public CounterTotals plus(CounterTotals o) {
        return new CounterTotals(
                samples + o.samples,
                inOctets + o.inOctets,
                outOctets + o.outOctets,
                inPackets + o.inPackets,
                outPackets + o.outPackets,
                inDiscards + o.inDiscards,
                outDiscards + o.outDiscards,
                inErrors + o.inErrors,
                outErrors + o.outErrors,
                fcsErrors + o.fcsErrors);
    }
}
