// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.bench;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.DecodeContext;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;

/**
 * Decode rate per CPU-second of the decoding thread, for comparing two builds on a loaded machine
 * (not part of the unit suite): for each capture, decodes all its datagrams in a loop, half the
 * time as warm-up, then prints flow records per CPU-second of the decoding thread ({@link
 * ThreadMXBean}), per wall-clock second, and per CPU-second of the whole process (GC and JIT
 * threads included). A capture is a file of testdata/ or a {@link SyntheticTraffic} stream. Usage:
 * {@code CpuRateMain seconds label capture...}; see BENCHMARKS.md.
 */
public final class CpuRateMain {

    private CpuRateMain() {}

    public static void main(String[] args) throws Exception {
        double seconds = Double.parseDouble(args[0]);
        String label = args[1];
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean();
        for (int k = 2; k < args.length; k++) {
            String capture = args[k];
            List<CaptureDatagrams.Datagram> ds =
                    SyntheticTraffic.names(capture)
                            ? SyntheticTraffic.datagrams(capture)
                            : CaptureDatagrams.datagrams(capture);
            ByteBuffer[] bs = new ByteBuffer[ds.size()];
            DecodeContext[] cs = new DecodeContext[ds.size()];
            for (int i = 0; i < bs.length; i++) {
                byte[] p = ds.get(i).payload();
                bs[i] = ByteBuffer.allocateDirect(p.length).put(p).flip();
                cs[i] = ds.get(i).context();
            }
            NetflowDecoder decoder = new NetflowDecoder();
            InMemoryTemplateCache cache = new InMemoryTemplateCache();
            for (int phase = 0; phase < 2; phase++) {
                long n = 0;
                long t0 = System.nanoTime();
                long c0 = mx.getCurrentThreadCpuTime();
                long p0 = os.getProcessCpuTime();
                long end = t0 + (long) (seconds * (phase == 0 ? 0.5 : 1.0) * 1e9);
                while (System.nanoTime() < end) {
                    for (int i = 0; i < bs.length; i++) {
                        n += decoder.decode(bs[i], cs[i], cache).records().size();
                    }
                }
                if (phase == 1) {
                    double cpu = (mx.getCurrentThreadCpuTime() - c0) / 1e9;
                    double process = (os.getProcessCpuTime() - p0) / 1e9;
                    double wall = (System.nanoTime() - t0) / 1e9;
                    System.out.printf(
                            Locale.ROOT,
                            "%s %-28s %6.2f M records per cpu-s %6.2f M records/s wall"
                                    + " (cpu %.1f s) %6.2f M per process cpu-s%n",
                            label,
                            capture,
                            n / cpu / 1e6,
                            n / wall / 1e6,
                            cpu,
                            n / process / 1e6);
                }
            }
        }
    }
}
