// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.bench;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.ExporterKey;
import io.flowhouse.codec.HostileDatagrams;
import io.flowhouse.codec.Mutator;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.ProblemCounts;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import io.flowhouse.codec.template.TemplateLimits;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Mutation fuzzer for the decoder (not part of the unit suite): mutates real datagrams from every
 * capture in testdata/, and the hostile datagrams of {@link HostileDatagrams} (odd-field x
 * empty-set bombs, huge option strings, floods), and decodes them, counting outcomes. Fails (exit
 * 1) on any exception other than {@link DecodeException}, on a decode that allocates more than
 * {@link #ALLOCATION_PER_INPUT_BYTE} bytes per input byte plus {@link #ALLOCATION_SLACK}, and (exit
 * 2) on a decode that makes no progress for {@link #STALL_SECONDS} seconds. Offending inputs are
 * written to {@code target/fuzz-failures/}.
 *
 * <p>Usage: {@code FuzzMain [inputs=10000000] [seed=1] [maxSeconds=3600] [netflow|sflow]}; see
 * BENCHMARKS.md. The {@code sflow} corpus mutates the sFlow captures' datagrams (half of them also
 * with {@link Mutator#mutateWords}, XDR lengths and counts) against the tighter bound of {@link
 * #SFLOW_ALLOCATION_PER_INPUT_BYTE} bytes per input byte plus {@link #SFLOW_ALLOCATION_SLACK}.
 */
public final class FuzzMain {

    /** Bytes a decode may allocate per input byte: a 1-byte record yields one ~300-byte flow. */
    static final long ALLOCATION_PER_INPUT_BYTE = 512;

    /**
     * Fixed allowance per decode: one-off growth of the decoder's reused tables (a layout map
     * rehash, the datagram scratch) that any small datagram may happen to trigger.
     */
    static final long ALLOCATION_SLACK = 64 * 1024;

    /**
     * Template limits of the fuzzer's cache: as the defaults, but templates of any size, so the
     * odd-field bomb's 8,000-field template is stored and its data sets decoded.
     */
    static final TemplateLimits LIMITS = new TemplateLimits(256, 0xffff, 1 << 20);

    /**
     * sFlow: bytes a decode may allocate per input byte. A 40-byte flow sample (the smallest that
     * yields a record) becomes a FlowRecord, its SflowFields and two IpAddresses, about 420 bytes.
     */
    static final long SFLOW_ALLOCATION_PER_INPUT_BYTE = 16;

    /** sFlow: fixed allowance per decode (result, duplicates, one problem text per kind). */
    static final long SFLOW_ALLOCATION_SLACK = 8 * 1024;

    static final int STALL_SECONDS = 10;

    /**
     * Copies of each hostile datagram among the seeds: with 2, mutations of them are about 1 % of
     * the inputs (each costs milliseconds: 64 KB, thousands of sets).
     */
    static final int HOSTILE_COPIES = 2;

    /**
     * Inputs before the allocation bound applies: the first decodes bootstrap string concatenation
     * and load classes (about 300 KB once), which is not the decoder's per-input allocation.
     */
    static final long WARMUP_INPUTS = 100_000;

    /** The shared captures whose datagrams seed the mutations. */
    static final String[] CAPTURES = {
        "netflow-v5-softflowd.pcap",
        "netflow-v5-nfreplay.pcap",
        "netflow-v9-softflowd.pcap",
        "netflow-v9-pmacct.pcap",
        "netflow-v9-nfreplay.pcap",
        "ipfix-softflowd.pcap",
        "ipfix-pmacct.pcap",
        "ipfix-biflow-softflowd.pcap"
    };

    /** The sFlow captures (seeds of the {@code sflow} corpus). */
    static final String[] SFLOW_CAPTURES = {"sflow-pmacct-rate1.pcap.gz", "sflow-ovs-rate10.pcap"};

    private static final DecodeProblem.Kind[] KINDS = DecodeProblem.Kind.values();

    private FuzzMain() {}

    /** Inputs of at least this size are where a per-byte allocation ratio means something. */
    static final int RATIO_MIN_BYTES = 1024;

    public static void main(String[] args) throws Exception {
        long inputs = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 1L;
        long maxSeconds = args.length > 2 ? Long.parseLong(args[2]) : 3600L;
        boolean sflow = args.length > 3 && args[3].equals("sflow");
        List<CaptureDatagrams.Datagram> seeds = new ArrayList<>();
        for (String f : sflow ? SFLOW_CAPTURES : CAPTURES) {
            seeds.addAll(CaptureDatagrams.datagrams(f));
        }
        // Each hostile datagram from an exporter of its own (NetFlow/IPFIX corpus only).
        int real = seeds.size();
        List<byte[]> hostile = sflow ? List.of() : new ArrayList<>(HostileDatagrams.all().values());
        for (int copy = 0; copy < HOSTILE_COPIES; copy++) {
            for (int i = 0; i < hostile.size(); i++) {
                ExporterKey from = new ExporterKey(IpAddress.ofIpv4(0xc0000280 + i), 4739);
                seeds.add(new CaptureDatagrams.Datagram(from, hostile.get(i), 0L));
            }
        }
        AtomicLong progress = new AtomicLong();
        byte[][] current = new byte[1][];
        startWatchdog(progress, current);
        Stats all = new Stats(sflow);
        Stats ofHostile = new Stats(sflow);
        Random rnd = new Random(seed);
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = null;
        long start = System.nanoTime();
        long deadline = start + maxSeconds * 1_000_000_000L;
        long done = 0;
        for (; done < inputs && System.nanoTime() < deadline; done++) {
            if (done % 100_000 == 0) {
                cache = learned(decoder, seeds);
            }
            int pick = rnd.nextInt(seeds.size());
            CaptureDatagrams.Datagram base = seeds.get(pick);
            byte[] m =
                    sflow && rnd.nextBoolean()
                            ? Mutator.mutateWords(Mutator.mutate(base.payload(), rnd), rnd)
                            : Mutator.mutate(base.payload(), rnd);
            current[0] = m;
            boolean measured = done >= WARMUP_INPUTS;
            all.decode(decoder, m, base, cache, measured, done);
            if (measured && pick >= real) {
                ofHostile.inputs++;
                ofHostile.measure(m.length, all.lastAlloc, all.lastCpu);
            }
            progress.lazySet(done);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "fuzz: %d inputs in %.1f s (%.0f inputs/s), seed %d, %d seed datagrams (%d real,"
                        + " %d hostile x "
                        + HOSTILE_COPIES
                        + ")%n",
                done,
                secs,
                done / secs,
                seed,
                seeds.size(),
                real,
                hostile.size());
        all.report(ofHostile);
        System.exit(all.failures.isEmpty() && all.overAllocation == 0 ? 0 : 1);
    }

    /** A fresh cache that learned the seeds' templates, so mutated data sets reach the records. */
    private static InMemoryTemplateCache learned(
            NetflowDecoder decoder, List<CaptureDatagrams.Datagram> seeds) {
        InMemoryTemplateCache cache = new InMemoryTemplateCache(LIMITS);
        for (CaptureDatagrams.Datagram d : seeds) {
            try {
                decoder.decode(d.buffer(), d.context(), cache);
            } catch (DecodeException e) {
                throw new IllegalStateException("seed does not decode", e);
            }
        }
        return cache;
    }

    private static void startWatchdog(AtomicLong progress, byte[][] current) {
        Thread watchdog =
                new Thread(
                        () -> {
                            long last = -1;
                            int still = 0;
                            while (true) {
                                try {
                                    Thread.sleep(1000);
                                } catch (InterruptedException e) {
                                    return;
                                }
                                long now = progress.get();
                                still = now == last ? still + 1 : 0;
                                last = now;
                                if (still >= STALL_SECONDS) {
                                    System.err.println(
                                            "STALL: no progress for "
                                                    + still
                                                    + " s on input "
                                                    + HexFormat.of().formatHex(current[0]));
                                    System.exit(2);
                                }
                            }
                        },
                        "fuzz-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    /** Outcomes and costs of the decodes. */
    private static final class Stats {
        final boolean sflow;
        final long perByte;
        final long slack;
        final com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long tid = Thread.currentThread().getId();
        final Map<DecodeProblem.Kind, Long> exceptions = new EnumMap<>(DecodeProblem.Kind.class);
        final long[] problems = new long[KINDS.length];
        final Map<String, Long> failures = new TreeMap<>();
        final Path failDir = Paths.get("target", "fuzz-failures");
        long inputs;
        long records;
        long maxAlloc;
        double maxRatio;
        double maxRatioLarge;
        long maxCpu;
        long maxNanos;
        long overAllocation;
        long lastAlloc;
        long lastCpu;
        long flowSamples;
        long counterSamples;
        long interfaceCounters;
        long firstTimeSites;

        Stats(boolean sflow) {
            this.sflow = sflow;
            this.perByte = sflow ? SFLOW_ALLOCATION_PER_INPUT_BYTE : ALLOCATION_PER_INPUT_BYTE;
            this.slack = sflow ? SFLOW_ALLOCATION_SLACK : ALLOCATION_SLACK;
        }

        void decode(
                NetflowDecoder decoder,
                byte[] m,
                CaptureDatagrams.Datagram base,
                InMemoryTemplateCache cache,
                boolean measured,
                long done)
                throws java.io.IOException {
            long a0 = mx.getThreadAllocatedBytes(tid);
            long c0 = mx.getThreadCpuTime(tid);
            long t0 = System.nanoTime();
            try {
                DecodeResult r = decoder.decode(ByteBuffer.wrap(m), base.context(), cache);
                lastAlloc = mx.getThreadAllocatedBytes(tid) - a0;
                lastCpu = mx.getThreadCpuTime(tid) - c0;
                records += r.records().size();
                if (r.sflow() != null) {
                    flowSamples += r.sflow().flowSamples();
                    counterSamples += r.sflow().counterSamples();
                    interfaceCounters += r.sflow().counters().size();
                }
                ProblemCounts pc = r.problemCounts();
                if (!pc.isEmpty()) {
                    for (DecodeProblem.Kind k : KINDS) {
                        problems[k.ordinal()] += pc.count(k);
                    }
                }
            } catch (DecodeException e) {
                lastAlloc = mx.getThreadAllocatedBytes(tid) - a0;
                lastCpu = mx.getThreadCpuTime(tid) - c0;
                exceptions.merge(e.kind(), 1L, Long::sum);
            } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                lastAlloc = mx.getThreadAllocatedBytes(tid) - a0;
                lastCpu = mx.getThreadCpuTime(tid) - c0;
                String key = e.getClass().getName() + ": " + e.getMessage();
                if (failures.merge(key, 1L, Long::sum) == 1L) {
                    Files.createDirectories(failDir);
                    Files.write(failDir.resolve("input-" + done + ".bin"), m);
                    e.printStackTrace();
                }
            }
            long dt = System.nanoTime() - t0;
            if (sflow && lastAlloc > perByte * m.length + slack) {
                // The first decode that reaches a string concatenation site (a problem text)
                // bootstraps it, about 0.8 MB once per JVM; sFlow decoding keeps no state, so the
                // same input decoded again shows what it costs.
                long a1 = mx.getThreadAllocatedBytes(tid);
                try {
                    decoder.decode(ByteBuffer.wrap(m), base.context(), cache);
                } catch (DecodeException e) {
                    // counted above
                }
                long again = mx.getThreadAllocatedBytes(tid) - a1;
                if (again < lastAlloc) {
                    firstTimeSites++;
                    lastAlloc = again;
                }
            }
            if (!measured) {
                return;
            }
            inputs++;
            maxNanos = Math.max(maxNanos, dt);
            measure(m.length, lastAlloc, lastCpu);
            if (lastAlloc > perByte * m.length + slack) {
                if (overAllocation++ == 0) {
                    Files.createDirectories(failDir);
                    Files.write(failDir.resolve("alloc-" + done + ".bin"), m);
                }
            }
        }

        void measure(int length, long alloc, long cpu) {
            maxAlloc = Math.max(maxAlloc, alloc);
            maxCpu = Math.max(maxCpu, cpu);
            double ratio = (double) alloc / Math.max(1, length);
            maxRatio = Math.max(maxRatio, ratio);
            if (length >= RATIO_MIN_BYTES) {
                maxRatioLarge = Math.max(maxRatioLarge, ratio);
            }
        }

        void report(Stats hostile) {
            System.out.println("fuzz: decoded records " + records);
            if (sflow) {
                System.out.println(
                        "fuzz: sFlow flow samples "
                                + flowSamples
                                + ", counter samples "
                                + counterSamples
                                + ", interface counter records "
                                + interfaceCounters
                                + "; inputs over the bound on their first decode only (a string"
                                + " concatenation site bootstrapped), measured again: "
                                + firstTimeSites);
            }
            System.out.println("fuzz: DecodeExceptions by kind " + exceptions);
            Map<DecodeProblem.Kind, Long> byKind = new EnumMap<>(DecodeProblem.Kind.class);
            for (DecodeProblem.Kind k : KINDS) {
                if (problems[k.ordinal()] > 0) {
                    byKind.put(k, problems[k.ordinal()]);
                }
            }
            System.out.println("fuzz: problems by kind " + byKind);
            System.out.printf(
                    Locale.ROOT,
                    "fuzz: after %d warm-up inputs: slowest decode %.3f ms wall, %.3f ms thread"
                            + " cpu; most allocated by one decode %d bytes; max allocation/input"
                            + " byte %.1f (inputs of %d bytes or more: %.1f); over the allocation"
                            + " bound (%d B/input byte + %d KiB) %d%n",
                    WARMUP_INPUTS,
                    maxNanos / 1e6,
                    maxCpu / 1e6,
                    maxAlloc,
                    maxRatio,
                    RATIO_MIN_BYTES,
                    maxRatioLarge,
                    perByte,
                    slack / 1024,
                    overAllocation);
            System.out.printf(
                    Locale.ROOT,
                    "fuzz: mutated hostile datagrams %d: most allocated by one decode %d bytes,"
                            + " max allocation/input byte %.1f (inputs of %d bytes or more:"
                            + " %.1f), most thread cpu %.3f ms%n",
                    hostile.inputs,
                    hostile.maxAlloc,
                    hostile.maxRatio,
                    RATIO_MIN_BYTES,
                    hostile.maxRatioLarge,
                    hostile.maxCpu / 1e6);
            System.out.println(
                    "fuzz: other exceptions " + (failures.isEmpty() ? "none" : failures));
        }
    }
}
