// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.bench;

import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.Mutator;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.SharedTestData;
import io.flowhouse.codec.template.InMemoryTemplateCache;
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
 * capture in shared/testdata and decodes them, counting outcomes. Fails (exit 1) on any exception
 * other than {@link DecodeException}, on a decode that allocates more than {@link
 * #ALLOCATION_PER_INPUT_BYTE} bytes per input byte plus {@link #ALLOCATION_SLACK}, and (exit 2) on
 * a decode that makes no progress for {@link #STALL_SECONDS} seconds. Offending inputs are written
 * to {@code target/fuzz-failures/}.
 *
 * <p>Usage: {@code FuzzMain [inputs=10000000] [seed=1] [maxSeconds=3600] [netflow|sflow]}; see
 * BENCHMARKS.md. The {@code sflow} corpus mutates the sFlow captures' datagrams (half of them also
 * with {@link Mutator#mutateWords}, XDR lengths and counts) against the tighter bound of {@link
 * #SFLOW_ALLOCATION_PER_INPUT_BYTE} bytes per input byte plus {@link #SFLOW_ALLOCATION_SLACK}.
 */
public final class FuzzMain {

    /** Bytes a decode may allocate per input byte: a 1-byte record yields one ~300-byte flow. */
    static final long ALLOCATION_PER_INPUT_BYTE = 512;

    /** Fixed allowance per decode (result lists, template objects). */
    static final long ALLOCATION_SLACK = 64 * 1024;

    /**
     * sFlow: bytes a decode may allocate per input byte. A 40-byte flow sample (the smallest that
     * yields a record) becomes a FlowRecord, its SflowFields and two IpAddresses, about 420 bytes.
     */
    static final long SFLOW_ALLOCATION_PER_INPUT_BYTE = 16;

    /** sFlow: fixed allowance per decode (result, duplicates, one problem text per kind). */
    static final long SFLOW_ALLOCATION_SLACK = 8 * 1024;

    static final int STALL_SECONDS = 10;

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

    private FuzzMain() {}

    public static void main(String[] args) throws Exception {
        long inputs = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 1L;
        long maxSeconds = args.length > 2 ? Long.parseLong(args[2]) : 3600L;
        boolean sflow = args.length > 3 && args[3].equals("sflow");
        long perByte = sflow ? SFLOW_ALLOCATION_PER_INPUT_BYTE : ALLOCATION_PER_INPUT_BYTE;
        long slack = sflow ? SFLOW_ALLOCATION_SLACK : ALLOCATION_SLACK;
        List<SharedTestData.Datagram> seeds = new ArrayList<>();
        for (String f : sflow ? SFLOW_CAPTURES : CAPTURES) {
            seeds.addAll(SharedTestData.datagrams(f));
        }
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        Random rnd = new Random(seed);
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache(256);
        AtomicLong progress = new AtomicLong();
        byte[][] current = new byte[1][];
        startWatchdog(progress, current);
        Tally t = new Tally();
        Map<DecodeProblem.Kind, Long> exceptions = t.exceptions;
        Map<DecodeProblem.Kind, Long> problems = t.problems;
        Map<String, Long> failures = t.failures;
        long start = System.nanoTime();
        long deadline = start + maxSeconds * 1_000_000_000L;
        long done = 0;
        Path failDir = Paths.get("target", "fuzz-failures");
        for (; done < inputs && System.nanoTime() < deadline; done++) {
            if (done % 100_000 == 0) {
                cache = new InMemoryTemplateCache(256);
                // learn real templates first, so mutated data sets reach the record decoder
                for (SharedTestData.Datagram d : seeds) {
                    try {
                        decoder.decode(d.buffer(), d.context(), cache);
                    } catch (DecodeException e) {
                        throw new IllegalStateException("seed does not decode", e);
                    }
                }
            }
            SharedTestData.Datagram base = seeds.get(rnd.nextInt(seeds.size()));
            byte[] m =
                    sflow && rnd.nextBoolean()
                            ? Mutator.mutateWords(Mutator.mutate(base.payload(), rnd), rnd)
                            : Mutator.mutate(base.payload(), rnd);
            current[0] = m;
            long a0 = mx.getThreadAllocatedBytes(tid);
            long t0 = System.nanoTime();
            try {
                DecodeResult r = decoder.decode(ByteBuffer.wrap(m), base.context(), cache);
                t.records += r.records().size();
                if (r.sflow() != null) {
                    t.flowSamples += r.sflow().flowSamples();
                    t.counterSamples += r.sflow().counterSamples();
                    t.interfaceCounters += r.sflow().counters().size();
                }
                for (DecodeProblem p : r.problems()) {
                    problems.merge(p.kind(), 1L, Long::sum);
                }
            } catch (DecodeException e) {
                exceptions.merge(e.kind(), 1L, Long::sum);
            } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
                String key = e.getClass().getName() + ": " + e.getMessage();
                if (failures.merge(key, 1L, Long::sum) == 1L) {
                    Files.createDirectories(failDir);
                    Files.write(failDir.resolve("input-" + done + ".bin"), m);
                    e.printStackTrace();
                }
            }
            long dt = System.nanoTime() - t0;
            long alloc = mx.getThreadAllocatedBytes(tid) - a0;
            if (sflow && alloc > perByte * m.length + slack) {
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
                if (again < alloc) {
                    t.firstTimeSites++;
                    alloc = again;
                }
            }
            if (done < WARMUP_INPUTS) {
                progress.lazySet(done);
                continue;
            }
            t.maxNanos = Math.max(t.maxNanos, dt);
            t.maxAlloc = Math.max(t.maxAlloc, alloc);
            t.maxRatio = Math.max(t.maxRatio, (double) alloc / Math.max(1, m.length));
            if (m.length >= 1024) {
                t.maxRatioOver1k = Math.max(t.maxRatioOver1k, (double) alloc / m.length);
            }
            t.inputBytes += m.length;
            t.allocatedBytes += alloc;
            if (alloc > perByte * m.length + slack) {
                if (t.overAllocation++ == 0) {
                    Files.createDirectories(failDir);
                    Files.write(failDir.resolve("alloc-" + done + ".bin"), m);
                }
            }
            progress.lazySet(done);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        t.print(done, secs, seed, seeds.size(), sflow, perByte, slack);
        System.exit(failures.isEmpty() && t.overAllocation == 0 ? 0 : 1);
    }

    /** Exits the JVM (2) when the decode loop makes no progress for {@link #STALL_SECONDS}. */
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

    /** What the run counted. */
    private static final class Tally {
        final Map<DecodeProblem.Kind, Long> exceptions = new EnumMap<>(DecodeProblem.Kind.class);
        final Map<DecodeProblem.Kind, Long> problems = new EnumMap<>(DecodeProblem.Kind.class);
        final Map<String, Long> failures = new TreeMap<>();
        long records;
        long maxAlloc;
        double maxRatio;
        long overAllocation;
        long maxNanos;
        long flowSamples;
        long counterSamples;
        long interfaceCounters;
        long inputBytes;
        long allocatedBytes;
        double maxRatioOver1k;
        long firstTimeSites;

        void print(
                long done,
                double secs,
                long seed,
                int seeds,
                boolean sflow,
                long perByte,
                long slack) {
            System.out.printf(
                    Locale.ROOT,
                    "fuzz: %d inputs in %.1f s (%.0f inputs/s), seed %d, %d seed datagrams%n",
                    done,
                    secs,
                    done / secs,
                    seed,
                    seeds);
            System.out.println("fuzz: decoded records " + records);
            if (sflow) {
                System.out.println(
                        "fuzz: sFlow flow samples "
                                + flowSamples
                                + ", counter samples "
                                + counterSamples
                                + ", interface counter records "
                                + interfaceCounters);
            }
            System.out.println("fuzz: DecodeExceptions by kind " + exceptions);
            System.out.println("fuzz: problems by kind " + problems);
            System.out.printf(
                    Locale.ROOT,
                    "fuzz: after %d warm-up inputs: slowest decode %.3f ms; most allocated by one"
                            + " decode %d bytes; max allocation/input-byte %.1f (inputs >= 1 KiB:"
                            + " %.1f; mean %.2f); over the allocation bound (%d B/input byte + %d KiB)"
                            + " %d%n",
                    WARMUP_INPUTS,
                    maxNanos / 1e6,
                    maxAlloc,
                    maxRatio,
                    maxRatioOver1k,
                    (double) allocatedBytes / Math.max(1, inputBytes),
                    perByte,
                    slack / 1024,
                    overAllocation);
            if (sflow) {
                System.out.println(
                        "fuzz: inputs over the bound on their first decode only (a string"
                                + " concatenation site bootstrapped), measured again: "
                                + firstTimeSites);
            }
            System.out.println(
                    "fuzz: other exceptions " + (failures.isEmpty() ? "none" : failures));
        }
    }
}
