// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import static org.assertj.core.api.Assertions.assertThat;

import com.maxmind.db.Network;
import com.maxmind.db.Networks;
import com.maxmind.db.Reader;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * For thousands of IPv4 and IPv6 addresses, drawn from each file's own networks and at random, the
 * country and AS we read equal what libmaxminddb's {@code mmdblookup} reads from the same real file
 * (ip-location-db's country database, and the ASN database built from its CC BY table).
 */
class GeoLookupMmdblookupITCase {

    private static final int FROM_NETWORKS = 1000;
    private static final int RANDOM = 400;

    private static Path dir;

    @BeforeAll
    static void data() throws Exception {
        GeoData.require(
                Tools.onPath("mmdblookup"), "mmdblookup on PATH (apt-get install mmdb-bin)");
        dir = GeoData.dir();
    }

    @Test
    void countryEqualsMmdblookup() throws Exception {
        Path file = dir.resolve("country.mmdb");
        GeoLookup geo =
                new GeoLookup(
                        MmdbFile.open(file, Duration.ofMinutes(1)), null, AsnOrder.EXPORTER_FIRST);
        List<InetAddress> sample = sample(file, 1);
        int found = 0;
        for (InetAddress a : sample) {
            String expected = Mmdblookup.lookup(file, a.getHostAddress(), "country_code");
            assertThat(geo.country(a, System.nanoTime()))
                    .as(a.getHostAddress())
                    .isEqualTo(expected);
            found += expected.isEmpty() ? 0 : 1;
        }
        assertThat(found).as("addresses with a country").isGreaterThan(FROM_NETWORKS / 2);
    }

    @Test
    void asEqualsMmdblookup() throws Exception {
        Path file = dir.resolve("asn.mmdb");
        GeoLookup geo =
                new GeoLookup(null, MmdbFile.open(file, Duration.ofMinutes(1)), AsnOrder.DATABASE);
        List<InetAddress> sample = sample(file, 2);
        int found = 0;
        for (InetAddress a : sample) {
            String ip = a.getHostAddress();
            String number = Mmdblookup.lookup(file, ip, "autonomous_system_number");
            String name = Mmdblookup.lookup(file, ip, "autonomous_system_organization");
            MmdbRecord r = geo.asRecord(a, System.nanoTime());
            assertThat(geo.asn(a, 0, System.nanoTime()))
                    .as(ip)
                    .isEqualTo(number.isEmpty() ? 0 : Long.parseLong(number));
            assertThat(r == null || r.asName() == null ? "" : r.asName()).as(ip).isEqualTo(name);
            // The exporter's number wins when set, in the default order.
            assertThat(new GeoLookup(null, geo.asnDb(), AsnOrder.EXPORTER_FIRST).asn(a, 64512, 0))
                    .isEqualTo(64512);
            found += number.isEmpty() ? 0 : 1;
        }
        assertThat(found).as("addresses with an AS").isGreaterThan(FROM_NETWORKS / 2);
    }

    /**
     * Addresses inside networks the file holds (every k-th, IPv4 and IPv6 alike), then random ones
     * of both families.
     */
    private static List<InetAddress> sample(Path file, long seed) throws Exception {
        Random random = new Random(seed);
        List<Network> networks = new ArrayList<>();
        try (Reader reader = new Reader(file.toFile())) {
            Networks<MmdbRecord> it = reader.networks(false, MmdbRecord.class);
            while (it.hasNext()) {
                networks.add(it.next().getNetwork());
            }
        }
        assertThat(networks).hasSizeGreaterThan(FROM_NETWORKS);
        List<InetAddress> out = new ArrayList<>();
        int v4 = 0;
        for (int i = 0; i < FROM_NETWORKS; i++) {
            Network n = networks.get(random.nextInt(networks.size()));
            out.add(inside(n, random));
            v4 += n.getNetworkAddress() instanceof Inet4Address ? 1 : 0;
        }
        assertThat(v4).as("IPv4 networks drawn").isBetween(FROM_NETWORKS / 10, FROM_NETWORKS - 10);
        for (int i = 0; i < RANDOM; i++) {
            byte[] b = new byte[i % 2 == 0 ? 4 : 16];
            random.nextBytes(b);
            if (b.length == 16) {
                b[0] = (byte) (0x20 | (b[0] & 0x0f)); // 2000::/4, the unicast space in use
            }
            out.add(InetAddress.getByAddress(b));
        }
        return out;
    }

    /** A random address inside {@code n}. */
    private static InetAddress inside(Network n, Random random) throws Exception {
        byte[] b = n.getNetworkAddress().getAddress();
        for (int bit = n.getPrefixLength(); bit < b.length * 8; bit++) {
            if (random.nextBoolean()) {
                b[bit / 8] |= (byte) (0x80 >>> (bit % 8));
            }
        }
        return InetAddress.getByAddress(b);
    }
}
