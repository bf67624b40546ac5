// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.geo;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A database file replaced in place is picked up after the check interval, with no restart. */
class MmdbFileReloadITCase {

    @TempDir Path tmp;

    @Test
    void replacedFileIsReloadedAndABrokenOneKeepsTheLastGood() throws Exception {
        Path data = GeoData.dir();
        Path live = tmp.resolve("live.mmdb");
        Files.copy(data.resolve("asn.mmdb"), live);
        MmdbFile f = MmdbFile.open(live, Duration.ofMillis(200));
        InetAddress google = InetAddress.getByName("8.8.8.8");
        assertThat(f.lookup(google).asn()).isEqualTo(15169);
        assertThat(f.lookup(google).country()).isNull();
        assertThat(f.loads()).isEqualTo(1);

        // A broken file: the last good one stays, one error per check.
        Path broken = tmp.resolve("broken");
        Files.write(broken, new byte[] {1, 2, 3});
        replace(broken, live);
        Thread.sleep(300);
        assertThat(f.lookup(google).asn()).isEqualTo(15169);
        assertThat(f.loadErrors()).isEqualTo(1);
        assertThat(f.lastError()).contains("keeping the last good one");

        // Now the country file: the same lookups answer from it.
        Path next = tmp.resolve("next");
        Files.copy(data.resolve("country.mmdb"), next);
        replace(next, live);
        Thread.sleep(300);
        MmdbRecord r = f.lookup(google);
        assertThat(r.country()).isEqualTo("US");
        assertThat(r.asn()).isZero();
        assertThat(f.loads()).isEqualTo(2);
        assertThat(f.lastError()).isNull();
    }

    private static void replace(Path from, Path to) throws Exception {
        Files.setLastModifiedTime(from, FileTime.from(Instant.now().plusSeconds(5)));
        Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
