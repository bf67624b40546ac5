// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MmdbFileTest {

    @TempDir Path tmp;

    @Test
    void missingFileIsAnErrorAndACounterNotAnException() throws Exception {
        MmdbFile f = MmdbFile.open(tmp.resolve("nope.mmdb"), Duration.ofHours(1));
        assertThat(f.loaded()).isFalse();
        assertThat(f.loadErrors()).isEqualTo(1);
        assertThat(f.lastError()).contains("nope.mmdb").contains("could not be read");
        assertThat(f.lookup(InetAddress.getByName("8.8.8.8"))).isNull();
        // Not retried per lookup: only once the interval passed.
        for (int i = 0; i < 1000; i++) {
            f.lookup(InetAddress.getByName("1.1.1.1"));
        }
        assertThat(f.loadErrors()).isEqualTo(1);
        GeoLookup geo = new GeoLookup(f, f, AsnOrder.EXPORTER_FIRST);
        assertThat(geo.country(InetAddress.getByName("8.8.8.8"), System.nanoTime())).isEmpty();
        assertThat(geo.asn(InetAddress.getByName("8.8.8.8"), 0, System.nanoTime())).isZero();
        assertThat(geo.asn(InetAddress.getByName("8.8.8.8"), 15169, System.nanoTime()))
                .isEqualTo(15169);
    }

    @Test
    void corruptFileIsAnErrorAndACounter() throws Exception {
        byte[] junk = new byte[64 * 1024];
        new Random(7).nextBytes(junk);
        Path bad = Files.write(tmp.resolve("bad.mmdb"), junk);
        MmdbFile f = MmdbFile.open(bad, Duration.ofMillis(100));
        assertThat(f.loaded()).isFalse();
        assertThat(f.loadErrors()).isEqualTo(1);
        assertThat(f.lastError()).contains("bad.mmdb");
        assertThat(f.lookup(InetAddress.getByName("::1"))).isNull();
    }

    @Test
    void asnOrderWords() {
        assertThat(AsnOrder.of("database")).isEqualTo(AsnOrder.DATABASE);
        assertThat(AsnOrder.of(" Exporter-First ")).isEqualTo(AsnOrder.EXPORTER_FIRST);
        assertThat(AsnOrder.EXPORTER_FIRST.keepsExporter(0)).isFalse();
        assertThat(AsnOrder.EXPORTER_FIRST.keepsExporter(3320)).isTrue();
        assertThat(AsnOrder.DATABASE.keepsExporter(3320)).isFalse();
        assertThat(AsnOrder.EXPORTER.keepsExporter(0)).isTrue();
        assertThatThrownBy(() -> AsnOrder.of("bgp")).hasMessageContaining("exporter-first");
    }
}
