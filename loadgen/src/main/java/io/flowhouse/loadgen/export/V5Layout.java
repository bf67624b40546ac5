// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.v5.V5Encoder;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * NetFlow v5: fixed 48-byte IPv4 records, at most 30 per datagram, sequence counting flows,
 * sampling announced in the header (mode 1, deterministic). The engine id is the exporter's domain.
 */
final class V5Layout implements MessageLayout {

    @Override
    public int maxRecords() {
        return V5Encoder.MAX_RECORDS;
    }

    @Override
    public int size(int ipv4, int ipv6, boolean templates, boolean sampling) {
        if (ipv6 != 0) {
            throw new IllegalArgumentException("v5 carries no IPv6");
        }
        return V5Encoder.size(ipv4);
    }

    @Override
    public Written write(
            MessageContext ctx, List<FlowRecord> flows, boolean templates, ByteBuffer out) {
        int interval = Math.min(ctx.samplingInterval(), V5Encoder.MAX_SAMPLING_INTERVAL);
        V5Encoder.Header h =
                new V5Encoder.Header(
                        ctx.exportTimeMillis(),
                        ctx.exportTimeMillis() - ctx.bootTimeMillis(),
                        ctx.sequence(),
                        0,
                        (int) (ctx.domainId() & 0xff),
                        interval > 1 ? V5Encoder.SAMPLING_MODE_DETERMINISTIC : 0,
                        interval > 1 ? interval : 0);
        return new Written(
                V5Encoder.encode(h, flows, out), 0, 0, skip(ctx.sequence(), flows.size()));
    }

    @Override
    public long skip(long sequence, int lost) {
        return (sequence + lost) & 0xffff_ffffL;
    }
}
