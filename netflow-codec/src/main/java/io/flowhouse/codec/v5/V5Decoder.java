// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.v5;

import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.TruncatedMessageException;
import io.flowhouse.codec.flow.DatagramHeader;
import io.flowhouse.codec.flow.FlowRecord;
import io.flowhouse.codec.flow.IpAddress;
import java.nio.ByteBuffer;

/**
 * Decodes NetFlow v5 export packets: a 24-byte header and up to 30 48-byte records. Holds a
 * reusable result builder: one instance per thread.
 */
public final class V5Decoder {

    public static final int HEADER_SIZE = 24;
    public static final int RECORD_SIZE = 48;

    /** The most records a v5 packet may carry (Cisco's definition). */
    public static final int MAX_RECORDS = 30;

    private final DecodeResult.Builder builder = new DecodeResult.Builder(1);

    /** Decodes one packet from {@code b}'s position; does not move the position. */
    public DecodeResult decode(ByteBuffer b, DecodeContext ctx) throws TruncatedMessageException {
        int start = b.position();
        int available = b.limit() - start;
        if (available < HEADER_SIZE) {
            throw new TruncatedMessageException(
                    DecodeProblem.Kind.TRUNCATED_HEADER,
                    "NetFlow v5 header needs "
                            + HEADER_SIZE
                            + " bytes, "
                            + available
                            + " remain (expected: >= "
                            + HEADER_SIZE
                            + ")");
        }
        int count = b.getShort(start + 2) & 0xffff; // uint16
        long sysUptime = b.getInt(start + 4) & 0xffff_ffffL; // uint32 ms
        long unixSecs = b.getInt(start + 8) & 0xffff_ffffL; // uint32
        long unixNsecs = b.getInt(start + 12) & 0xffff_ffffL; // uint32
        long sequence = b.getInt(start + 16) & 0xffff_ffffL; // uint32, counts flows
        int engineType = b.get(start + 20) & 0xff;
        int engineId = b.get(start + 21) & 0xff;
        int sampling = b.getShort(start + 22) & 0xffff; // top 2 bits mode, low 14 interval
        long interval = sampling & 0x3fff;
        long rate = interval == 0 ? 1L : interval;
        long domain = ((long) engineType << 8) | engineId;
        long exportMillis = unixSecs * 1000L + unixNsecs / 1_000_000L;
        int fit = (available - HEADER_SIZE) / RECORD_SIZE;
        DecodeResult.Builder out = builder.reset(Math.min(count, fit));
        out.header(5, domain, sequence, exportMillis, count, sysUptime);
        if (count == 0 || count > MAX_RECORDS) {
            out.problem(
                    DecodeProblem.Kind.BAD_RECORD_COUNT,
                    "count " + count + " (expected: 1.." + MAX_RECORDS + ")",
                    -1);
        }
        if (count > fit) {
            out.problem(
                    DecodeProblem.Kind.BAD_RECORD_COUNT,
                    "count "
                            + count
                            + " needs "
                            + (HEADER_SIZE + count * RECORD_SIZE)
                            + " bytes, datagram has "
                            + available,
                    -1);
        } else if (available > HEADER_SIZE + count * RECORD_SIZE) {
            out.problem(
                    DecodeProblem.Kind.TRAILING_BYTES,
                    (available - HEADER_SIZE - count * RECORD_SIZE)
                            + " bytes after "
                            + count
                            + " records",
                    -1);
        }
        int n = Math.min(count, fit);
        IpAddress exporter = ctx.exporter().address();
        int exporterPort = ctx.exporter().port();
        DatagramHeader header =
                new DatagramHeader(
                        5,
                        exporter,
                        exporterPort,
                        domain,
                        sequence,
                        exportMillis,
                        ctx.receivedMillis(),
                        ctx.streamId(),
                        ctx.streamSequence());
        for (int i = 0; i < n; i++) {
            int p = start + HEADER_SIZE + i * RECORD_SIZE;
            long first = b.getInt(p + 24) & 0xffff_ffffL;
            long last = b.getInt(p + 28) & 0xffff_ffffL;
            out.record(
                    new FlowRecord(
                            header,
                            i,
                            exportMillis - (int) (sysUptime - first),
                            exportMillis - (int) (sysUptime - last),
                            4,
                            IpAddress.ofIpv4(b.getInt(p)),
                            IpAddress.ofIpv4(b.getInt(p + 4)),
                            nextHop(b.getInt(p + 8)),
                            b.get(p + 44) & 0xff,
                            b.get(p + 45) & 0xff,
                            b.getShort(p + 32) & 0xffff,
                            b.getShort(p + 34) & 0xffff,
                            b.get(p + 38) & 0xff,
                            b.get(p + 37) & 0xff,
                            b.get(p + 39) & 0xff,
                            b.getInt(p + 20) & 0xffff_ffffL,
                            b.getInt(p + 16) & 0xffff_ffffL,
                            0L,
                            0L,
                            b.getShort(p + 12) & 0xffff,
                            b.getShort(p + 14) & 0xffff,
                            0,
                            0,
                            0L,
                            0L,
                            b.getShort(p + 40) & 0xffff,
                            b.getShort(p + 42) & 0xffff,
                            -1,
                            0,
                            rate,
                            null,
                            0L,
                            0L,
                            0L,
                            0L));
        }
        return out.build();
    }

    private static IpAddress nextHop(int v4) {
        return v4 == 0 ? IpAddress.UNSPECIFIED : IpAddress.ofIpv4(v4);
    }
}
