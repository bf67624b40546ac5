// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.rollup;

import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.sinks.clickhouse.rollup.RollupRow;
import org.apache.flink.api.common.typeinfo.TypeInfo;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * The identity of a rollup bucket within a window: every key field of a {@link RollupRow}.
 *
 * @param kind rollup kind code
 * @param exporter exporter
 * @param iface interface
 * @param direction direction
 * @param protocol protocol
 * @param port port
 * @param srcAs source AS
 * @param dstAs destination AS
 * @param srcAddr talker / conversation source
 * @param dstAddr conversation destination
 */
@TypeInfo(RollupKeyTypeInfo.Factory.class)
public record RollupKey(
        int kind,
        IpAddress exporter,
        long iface,
        int direction,
        int protocol,
        int port,
        long srcAs,
        long dstAs,
        IpAddress srcAddr,
        IpAddress dstAddr) {

    /** Keys contributions by their bucket. */
    public static final class OfRow implements KeySelector<RollupRow, RollupKey> {
        private static final long serialVersionUID = 1L;

        @Override
        public RollupKey getKey(RollupRow r) {
            return new RollupKey(
                    r.kind(),
                    r.exporter(),
                    r.iface(),
                    r.direction(),
                    r.protocol(),
                    r.port(),
                    r.srcAs(),
                    r.dstAs(),
                    r.srcAddr(),
                    r.dstAddr());
        }
    }

    /** Keys talker and conversation sums by exporter and kind, for ranking. */
    public static final class OfRanking implements KeySelector<RollupRow, RollupKey> {
        private static final long serialVersionUID = 1L;

        @Override
        public RollupKey getKey(RollupRow r) {
            IpAddress none = IpAddress.UNSPECIFIED;
            return new RollupKey(r.kind(), r.exporter(), 0, 0, 0, 0, 0, 0, none, none);
        }
    }
}
