// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.bench;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeProblem;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.Mutator;
import io.flowhouse.codec.NetflowDecoder;
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
 * capture in testdata/ and decodes them, counting outcomes. Fails (exit 1) on any exception other
 * than {@link DecodeException}, on a decode that allocates more than {@link
 * #ALLOCATION_PER_INPUT_BYTE} bytes per input byte plus {@link #ALLOCATION_SLACK}, and (exit 2) on
 * a decode that makes no progress for {@link #STALL_SECONDS} seconds. Offending inputs are written
 * to {@code target/fuzz-failures/}.
 *
 * <p>Usage: {@code FuzzMain [inputs=10000000] [seed=1] [maxSeconds=3600]}; see BENCHMARKS.md.
 */
public final class FuzzMain {

    /** Bytes a decode may allocate per input byte: a 1-byte record yields one ~300-byte flow. */
    static final long ALLOCATION_PER_INPUT_BYTE = 512;

    /** Fixed allowance per decode (result lists, template objects). */
    static final long ALLOCATION_SLACK = 64 * 1024;

    static final int STALL_SECONDS = 10;

    /**
     * Inputs before the allocation bound applies: the first decodes bootstrap string concatenation
     * and load classes (about 300 KB once), which is not the decoder's per-input allocation.
     */
    static final long WARMUP_INPUTS = 100_000;

    /** The test captures whose datagrams seed the mutations. */
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

    private FuzzMain() {}

    public static void main(String[] args) throws Exception {
        long inputs = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 1L;
        long maxSeconds = args.length > 2 ? Long.parseLong(args[2]) : 3600L;
        List<CaptureDatagrams.Datagram> seeds = new ArrayList<>();
        for (String f : CAPTURES) {
            seeds.addAll(CaptureDatagrams.datagrams(f));
        }
        com.sun.management.ThreadMXBean mx =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().getId();
        Random rnd = new Random(seed);
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache(256);
        AtomicLong progress = new AtomicLong();
        byte[][] current = new byte[1][];
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
        Map<DecodeProblem.Kind, Long> exceptions = new EnumMap<>(DecodeProblem.Kind.class);
        Map<DecodeProblem.Kind, Long> problems = new EnumMap<>(DecodeProblem.Kind.class);
        Map<String, Long> failures = new TreeMap<>();
        long records = 0;
        long maxAlloc = 0;
        double maxRatio = 0;
        long overAllocation = 0;
        long maxNanos = 0;
        long start = System.nanoTime();
        long deadline = start + maxSeconds * 1_000_000_000L;
        long done = 0;
        Path failDir = Paths.get("target", "fuzz-failures");
        for (; done < inputs && System.nanoTime() < deadline; done++) {
            if (done % 100_000 == 0) {
                cache = new InMemoryTemplateCache(256);
                // learn real templates first, so mutated data sets reach the record decoder
                for (CaptureDatagrams.Datagram d : seeds) {
                    try {
                        decoder.decode(d.buffer(), d.context(), cache);
                    } catch (DecodeException e) {
                        throw new IllegalStateException("seed does not decode", e);
                    }
                }
            }
            CaptureDatagrams.Datagram base = seeds.get(rnd.nextInt(seeds.size()));
            byte[] m = Mutator.mutate(base.payload(), rnd);
            current[0] = m;
            long a0 = mx.getThreadAllocatedBytes(tid);
            long t0 = System.nanoTime();
            try {
                DecodeResult r = decoder.decode(ByteBuffer.wrap(m), base.context(), cache);
                records += r.records().size();
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
            if (done < WARMUP_INPUTS) {
                progress.lazySet(done);
                continue;
            }
            maxNanos = Math.max(maxNanos, dt);
            maxAlloc = Math.max(maxAlloc, alloc);
            maxRatio = Math.max(maxRatio, (double) alloc / Math.max(1, m.length));
            if (alloc > ALLOCATION_PER_INPUT_BYTE * m.length + ALLOCATION_SLACK) {
                if (overAllocation++ == 0) {
                    Files.createDirectories(failDir);
                    Files.write(failDir.resolve("alloc-" + done + ".bin"), m);
                }
            }
            progress.lazySet(done);
        }
        double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf(
                Locale.ROOT,
                "fuzz: %d inputs in %.1f s (%.0f inputs/s), seed %d, %d seed datagrams%n",
                done,
                secs,
                done / secs,
                seed,
                seeds.size());
        System.out.println("fuzz: decoded records " + records);
        System.out.println("fuzz: DecodeExceptions by kind " + exceptions);
        System.out.println("fuzz: problems by kind " + problems);
        System.out.printf(
                Locale.ROOT,
                "fuzz: after %d warm-up inputs: slowest decode %.3f ms; most allocated by one"
                        + " decode %d bytes; max allocation/input-byte %.1f; over the allocation"
                        + " bound (512 B/input byte + 64 KiB) %d%n",
                WARMUP_INPUTS,
                maxNanos / 1e6,
                maxAlloc,
                maxRatio,
                overAllocation);
        System.out.println("fuzz: other exceptions " + (failures.isEmpty() ? "none" : failures));
        System.exit(failures.isEmpty() && overAllocation == 0 ? 0 : 1);
    }
}
