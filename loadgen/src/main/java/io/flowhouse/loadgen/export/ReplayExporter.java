// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.loadgen.export;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A simulated exporter for rates beyond what the generator can make live: it builds a pool of
 * datagrams once with a {@link SimulatedExporter} and then cycles through them, rewriting only the
 * header's export time, uptime and sequence number, so a collector still sees a consistent,
 * gap-free stream. Flow content repeats every pool; totals stay exact because each datagram's
 * counts were taken when it was built. Sequence gaps of the profile are not replayed.
 *
 * <p>The pool is held in direct buffers and each datagram's view is made once: a send then neither
 * copies the bytes into a native buffer nor allocates, which is what bounds a single sending thread
 * at sFlow's small, numerous datagrams.
 */
public final class ReplayExporter implements DatagramSource {

    private record Pooled(ByteBuffer bytes, ExportDatagram out, int sequenceUnits) {}

    private final SimulatedExporter source;
    private final List<Pooled> pool;
    private final long bootTimeMillis;
    private long sequence;
    private int next;

    /**
     * @param poolSize datagrams to build up front; a multiple of the template refresh interval
     *     keeps template refreshes evenly spaced
     */
    public ReplayExporter(SimulatedExporter source, int poolSize, long buildTimeMillis) {
        if (poolSize < 1) {
            throw new IllegalArgumentException("pool size " + poolSize + " (expected: >= 1)");
        }
        this.source = source;
        this.bootTimeMillis = source.bootTimeMillis();
        this.pool = new ArrayList<>(poolSize);
        for (int i = 0; i < poolSize; i++) {
            ExportDatagram d = source.next(buildTimeMillis);
            ByteBuffer copy = ByteBuffer.allocateDirect(d.length());
            copy.put(d.payload().duplicate()).flip();
            int units =
                    switch (source.protocol()) {
                        case V5 -> d.flows().size();
                        case V9 -> 1;
                        case IPFIX -> d.flows().size() + d.optionsRecords();
                        case SFLOW -> 1;
                    };
            ExportDatagram out =
                    new ExportDatagram(
                            d.exporter(),
                            copy.asReadOnlyBuffer(),
                            d.flows(),
                            d.templateRecords(),
                            d.optionsRecords(),
                            d.malformed(),
                            d.packets(),
                            d.bytes(),
                            d.counters());
            pool.add(new Pooled(copy, out, d.malformed() ? 0 : units));
        }
    }

    @Override
    public ExportDatagram next(long exportTimeMillis, int maxFlows) {
        Pooled p = pool.get(next);
        next = next + 1 == pool.size() ? 0 : next + 1;
        if (!p.out().malformed()) {
            patchHeader(p.bytes(), exportTimeMillis);
            sequence = (sequence + p.sequenceUnits()) & 0xffff_ffffL;
        }
        // The view's position stays 0: every sink reads a duplicate of it.
        return p.out();
    }

    private void patchHeader(ByteBuffer b, long exportMillis) {
        long secs = Math.floorDiv(exportMillis, 1000L);
        switch (source.protocol()) {
            case V5 -> {
                b.putInt(4, (int) (exportMillis - bootTimeMillis));
                b.putInt(8, (int) secs);
                b.putInt(12, (int) (Math.floorMod(exportMillis, 1000L) * 1_000_000L));
                b.putInt(16, (int) sequence);
            }
            case V9 -> {
                b.putInt(4, (int) (secs * 1000L - bootTimeMillis));
                b.putInt(8, (int) secs);
                b.putInt(12, (int) sequence);
            }
            case IPFIX -> {
                b.putInt(4, (int) secs);
                b.putInt(8, (int) sequence);
            }
            case SFLOW -> {
                // IPv4 agent: sub-agent at 12, datagram sequence at 16, uptime at 20. The samples'
                // own sequence numbers repeat with the pool.
                b.putInt(16, (int) sequence);
                b.putInt(20, (int) (exportMillis - bootTimeMillis));
            }
        }
    }

    @Override
    public int index() {
        return source.index();
    }

    @Override
    public ExportProtocol protocol() {
        return source.protocol();
    }

    @Override
    public long domainId() {
        return source.domainId();
    }

    @Override
    public long sequence() {
        return sequence;
    }

    @Override
    public long gaps() {
        return 0;
    }

    @Override
    public long missingSequence() {
        return 0;
    }
}
