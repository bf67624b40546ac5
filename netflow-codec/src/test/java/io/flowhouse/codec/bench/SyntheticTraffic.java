// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.bench;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.flow.IpAddress;
import io.flowhouse.codec.ipfix.IpfixEncoder;
import io.flowhouse.codec.template.FieldSpecifier;
import io.flowhouse.codec.template.Template;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntSupplier;

/**
 * IPFIX messages shaped like pmacct's (its IPv4 template, field for field, six records per message,
 * the template resent every 100 messages) whose addresses follow a chosen distribution, so a decode
 * benchmark can show what the address distribution does to the rate: the captures in testdata/ have
 * one distribution each. Names (for {@link CpuRateMain}):
 *
 * <ul>
 *   <li>{@code synthetic-distinct}: every address new (a cache of recent addresses never hits);
 *   <li>{@code synthetic-zipf}: source and destination drawn independently from a Zipf(1.0)
 *       popularity over 1,000,000 addresses (a common model of flow address popularity);
 *   <li>{@code synthetic-site}: one side from a site of 2,000 hosts (Zipf 1.0), the other from
 *       Zipf(1.0) over 1,000,000 remote addresses (an edge router's view).
 * </ul>
 *
 * Deterministic (fixed seed). Not part of the unit suite.
 */
final class SyntheticTraffic {

    static final String PREFIX = "synthetic-";

    /** pmacct 1.7's IPv4 flow template (ipfix-pmacct.pcap, template 1024). */
    private static final Template PMACCT_V4 =
            Template.of(
                    1024,
                    List.of(
                            FieldSpecifier.of(153, 8),
                            FieldSpecifier.of(152, 8),
                            FieldSpecifier.of(1, 8),
                            FieldSpecifier.of(2, 8),
                            FieldSpecifier.of(60, 1),
                            FieldSpecifier.of(10, 4),
                            FieldSpecifier.of(14, 4),
                            FieldSpecifier.of(61, 1),
                            FieldSpecifier.of(8, 4),
                            FieldSpecifier.of(12, 4),
                            FieldSpecifier.of(7, 2),
                            FieldSpecifier.of(11, 2),
                            FieldSpecifier.of(5, 1),
                            FieldSpecifier.of(6, 1),
                            FieldSpecifier.of(4, 1),
                            FieldSpecifier.of(56, 6),
                            FieldSpecifier.of(80, 6),
                            FieldSpecifier.of(58, 2)));

    private static final int RECORDS = 60_000;
    private static final int PER_MESSAGE = 6;
    private static final int TEMPLATE_EVERY = 100;

    private SyntheticTraffic() {}

    static boolean names(String capture) {
        return capture.startsWith(PREFIX);
    }

    /**
     * The datagrams of one synthetic stream, as {@link CaptureDatagrams#datagrams} gives a pcap's.
     */
    static List<CaptureDatagrams.Datagram> datagrams(String name) {
        SplittableRandom random = new SplittableRandom(42);
        IntSupplier src;
        IntSupplier dst;
        switch (name.substring(PREFIX.length())) {
            case "distinct":
                int[] next = {0x0a00_0000};
                src = () -> next[0]++;
                dst = () -> next[0]++;
                break;
            case "zipf":
                Zipf remote = new Zipf(1_000_000, 1.0);
                src = () -> scatter(remote.next(random));
                dst = () -> scatter(remote.next(random));
                break;
            case "site":
                Zipf hosts = new Zipf(2_000, 1.0);
                Zipf internet = new Zipf(1_000_000, 1.0);
                src = () -> 0xc0a8_0000 + hosts.next(random);
                dst = () -> scatter(internet.next(random));
                break;
            default:
                throw new IllegalArgumentException("unknown synthetic stream " + name);
        }
        IpfixEncoder enc = new IpfixEncoder();
        List<CaptureDatagrams.Datagram> out = new ArrayList<>();
        ByteBuffer buf = ByteBuffer.allocate(IpfixEncoder.MAX_MESSAGE_SIZE);
        long t = 1_700_000_000_000L;
        for (int m = 0; m * PER_MESSAGE < RECORDS; m++) {
            buf.clear();
            IpfixEncoder.Message msg = enc.begin(buf, 0, t / 1000);
            if (m % TEMPLATE_EVERY == 0) {
                msg.template(PMACCT_V4);
            }
            msg.data(PMACCT_V4.templateId());
            for (int r = 0; r < PER_MESSAGE; r++) {
                boolean outbound = random.nextBoolean();
                int a = src.getAsInt();
                int b = dst.getAsInt();
                msg.u64(t)
                        .u64(t - random.nextInt(60_000))
                        .u64(40 + random.nextInt(1_500_000))
                        .u64(1 + random.nextInt(1_000))
                        .u8(4)
                        .u32(1 + random.nextInt(8))
                        .u32(1 + random.nextInt(8))
                        .u8(outbound ? 1 : 0)
                        .ipv4(IpAddress.ofIpv4(outbound ? a : b))
                        .ipv4(IpAddress.ofIpv4(outbound ? b : a))
                        .u16(1024 + random.nextInt(64_000))
                        .u16(random.nextBoolean() ? 443 : random.nextInt(1024))
                        .u8(0)
                        .u8(0x1b)
                        .u8(6)
                        .mac(0x00_1b_21_00_00_00L + random.nextInt(64))
                        .mac(0x00_1b_21_00_01_00L + random.nextInt(64))
                        .u16(0)
                        .endRecord();
            }
            msg.finish();
            byte[] payload = Arrays.copyOf(buf.array(), buf.position());
            out.add(
                    new CaptureDatagrams.Datagram(
                            CaptureDatagrams.localhost(4739), payload, t * 1_000_000L));
            t += 1;
        }
        return out;
    }

    /** Ranks to addresses spread over the whole space (a bijection on 32 bits). */
    private static int scatter(int rank) {
        return (rank * 0x9e37_79b1) ^ 0x5bd1_e995;
    }

    /** Zipf(s) over ranks 0..n-1 by inverse transform on a precomputed CDF. */
    private static final class Zipf {
        private final double[] cdf;

        Zipf(int n, double s) {
            cdf = new double[n];
            double sum = 0;
            for (int i = 0; i < n; i++) {
                sum += 1.0 / Math.pow(i + 1, s);
                cdf[i] = sum;
            }
            for (int i = 0; i < n; i++) {
                cdf[i] /= sum;
            }
        }

        int next(SplittableRandom random) {
            int i = Arrays.binarySearch(cdf, random.nextDouble());
            return Math.min(i >= 0 ? i : -i - 1, cdf.length - 1);
        }
    }
}
