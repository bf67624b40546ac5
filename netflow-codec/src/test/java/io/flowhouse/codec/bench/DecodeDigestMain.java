// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.bench;

import io.flowhouse.codec.CaptureDatagrams;
import io.flowhouse.codec.DecodeException;
import io.flowhouse.codec.DecodeResult;
import io.flowhouse.codec.Mutator;
import io.flowhouse.codec.NetflowDecoder;
import io.flowhouse.codec.template.InMemoryTemplateCache;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;

/**
 * Differential check for decoder optimizations (not part of the unit suite): decodes every datagram
 * of the eight test captures, then mutated copies of them (as {@link FuzzMain} does), and prints a
 * SHA-256 over the text of every {@link DecodeResult} (header facts, every record field, templates
 * learned and withdrawn, every problem and its message) and every {@link DecodeException}. Run it
 * on two builds: equal digests mean equal results, byte for byte.
 *
 * <p>Usage: {@code DecodeDigestMain [mutatedInputs=300000] [seed=7] [dumpFile|-] [netflow|sflow]};
 * see BENCHMARKS.md. With a dump file, every result's text is also written there, one per line, so
 * two builds whose digests differ can be compared with {@code diff} ({@code -}: no dump). The
 * {@code sflow} corpus is the two sFlow captures, mutated as {@link FuzzMain} does (half of the
 * inputs also get XDR length and count words set); the default is the eight NetFlow/IPFIX ones.
 */
public final class DecodeDigestMain {

    /** Inputs between two template-cache resets (the real datagrams are decoded again then). */
    static final int CACHE_ROUND = 50_000;

    private DecodeDigestMain() {}

    public static void main(String[] args) throws Exception {
        long inputs = args.length > 0 ? Long.parseLong(args[0]) : 300_000L;
        long seed = args.length > 1 ? Long.parseLong(args[1]) : 7L;
        dump =
                args.length > 2 && !args[2].equals("-")
                        ? new java.io.PrintWriter(
                                java.nio.file.Files.newBufferedWriter(
                                        java.nio.file.Path.of(args[2])))
                        : null;
        boolean sflow = args.length > 3 && args[3].equals("sflow");
        List<CaptureDatagrams.Datagram> seeds = new ArrayList<>();
        for (String f : sflow ? FuzzMain.SFLOW_CAPTURES : FuzzMain.CAPTURES) {
            seeds.addAll(CaptureDatagrams.datagrams(f));
        }
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        Random rnd = new Random(seed);
        NetflowDecoder decoder = new NetflowDecoder();
        InMemoryTemplateCache cache = new InMemoryTemplateCache(256);
        long records = 0;
        for (long i = 0; i < inputs; i++) {
            if (i % CACHE_ROUND == 0) {
                cache = new InMemoryTemplateCache(256);
                for (CaptureDatagrams.Datagram s : seeds) {
                    records += digest(md, decoder, s.buffer(), s, cache);
                }
            }
            CaptureDatagrams.Datagram s = seeds.get(rnd.nextInt(seeds.size()));
            byte[] in =
                    sflow && rnd.nextBoolean()
                            ? Mutator.mutateWords(Mutator.mutate(s.payload(), rnd), rnd)
                            : Mutator.mutate(s.payload(), rnd);
            records += digest(md, decoder, ByteBuffer.wrap(in), s, cache);
        }
        System.out.println(
                "digest: "
                        + seeds.size()
                        + " datagrams, "
                        + inputs
                        + " mutated inputs (seed "
                        + seed
                        + "), "
                        + records
                        + " records, sha256 "
                        + HexFormat.of().formatHex(md.digest()));
        if (dump != null) {
            dump.close();
        }
    }

    private static java.io.PrintWriter dump;

    private static int digest(
            MessageDigest md,
            NetflowDecoder decoder,
            ByteBuffer in,
            CaptureDatagrams.Datagram s,
            InMemoryTemplateCache cache) {
        String text;
        int records = 0;
        try {
            DecodeResult r = decoder.decode(in, s.context(), cache);
            text = r + " units=" + r.sequenceUnits();
            records = r.records().size();
        } catch (DecodeException e) {
            text = e.getClass().getName() + ": " + e.getMessage();
        }
        md.update(text.getBytes(StandardCharsets.UTF_8));
        if (dump != null) {
            dump.println(text.replace('\n', ' '));
        }
        return records;
    }
}
