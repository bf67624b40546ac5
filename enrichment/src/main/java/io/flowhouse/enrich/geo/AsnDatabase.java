// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import com.maxmind.db.CHMCache;
import com.maxmind.db.DatabaseRecord;
import com.maxmind.db.InvalidNetworkException;
import com.maxmind.db.Network;
import com.maxmind.db.Networks;
import com.maxmind.db.Reader;
import java.io.IOException;
import java.net.Inet4Address;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * A whole ASN database read once, network by network (MaxMind's reader): the AS names for the
 * {@code as_names} table, and real announced prefixes for generated traffic. Not for the flow path
 * ({@link MmdbFile} answers lookups there).
 */
public final class AsnDatabase {

    /** One network of the file with its AS number. */
    public record AsnNetwork(String cidr, boolean ipv4, int prefixLength, long asn) {}

    private AsnDatabase() {}

    /**
     * Every AS number of the file with its organisation; an AS whose networks carry different names
     * (the file is built from several sources) keeps the name of its first network in the file's
     * order, the one a lookup of that network's address returns.
     */
    public static SortedMap<Long, String> names(Path mmdb) throws IOException {
        SortedMap<Long, String> names = new TreeMap<>();
        forEach(
                mmdb,
                (network, record) -> {
                    if (record.asn() != 0 && record.asName() != null) {
                        names.putIfAbsent(record.asn(), record.asName());
                    }
                });
        return names;
    }

    /**
     * {@code count} networks with an AS number drawn from the file with a fixed {@code seed}
     * (reservoir sampling in the file's order, so the same file and seed give the same list), IPv4
     * /8 to /24 and IPv6 /16 to /48 only: prefixes a router would announce, wide enough for hosts.
     */
    public static List<AsnNetwork> sampleNetworks(Path mmdb, int count, long seed)
            throws IOException {
        if (count < 1) {
            throw new IllegalArgumentException("count " + count + " (expected: >= 1)");
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        List<AsnNetwork> sample = new ArrayList<>(count);
        long[] seen = {0};
        forEach(
                mmdb,
                (network, record) -> {
                    boolean v4 = network.getNetworkAddress() instanceof Inet4Address;
                    int len = network.getPrefixLength();
                    if (record.asn() == 0
                            || (v4 && (len < 8 || len > 24))
                            || (!v4 && (len < 16 || len > 48))) {
                        return;
                    }
                    AsnNetwork n =
                            new AsnNetwork(
                                    network.getNetworkAddress().getHostAddress() + "/" + len,
                                    v4,
                                    len,
                                    record.asn());
                    long i = seen[0]++;
                    if (i < count) {
                        sample.add(n);
                    } else {
                        long j = rnd.nextLong(i + 1);
                        if (j < count) {
                            sample.set((int) j, n);
                        }
                    }
                });
        return sample;
    }

    private interface Visitor {
        void visit(Network network, MmdbRecord record);
    }

    private static void forEach(Path mmdb, Visitor visitor) throws IOException {
        try (Reader reader =
                new Reader(mmdb.toFile(), Reader.FileMode.MEMORY, new CHMCache(1 << 17))) {
            // Without the aliases (::ffff:0:0/96, 2002::/16): IPv4 networks come once, as IPv4.
            Networks<MmdbRecord> networks = reader.networks(false, MmdbRecord.class);
            while (networks.hasNext()) {
                DatabaseRecord<MmdbRecord> r = networks.next();
                if (r.getData() != null) {
                    visitor.visit(r.getNetwork(), r.getData());
                }
            }
        } catch (InvalidNetworkException | RuntimeException e) {
            throw new IOException(mmdb + ": " + e.getMessage(), e);
        }
    }
}
