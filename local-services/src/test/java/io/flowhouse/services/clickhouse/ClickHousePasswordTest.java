// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.clickhouse;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClickHousePasswordTest {

    @Test
    void generatedOnceOwnerOnlyAndKept(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("state/clickhouse.password");
        String password = ClickHousePassword.ensure(file);
        assertThat(password).matches("[A-Za-z0-9_-]{32}");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        assertThat(ClickHousePassword.ensure(file)).as("kept").isEqualTo(password);
        assertThat(ClickHousePassword.ensure(dir.resolve("other"))).isNotEqualTo(password);

        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(ClickHousePassword.ensure(file)).isEqualTo(password);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .as("narrowed again")
                .isEqualTo("rw-------");
    }

    @Test
    void hashAndHeaders(@TempDir Path dir) throws Exception {
        // echo -n abc | sha256sum
        assertThat(ClickHousePassword.sha256Hex("abc"))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assertThat(ClickHousePassword.headersFor(dir.resolve("none"))).isEmpty();
        Path file = dir.resolve("pw");
        String password = ClickHousePassword.ensure(file);
        String header = ClickHousePassword.headersFor(file).get("Authorization");
        assertThat(header).startsWith("Basic ");
        assertThat(
                        new String(
                                Base64.getDecoder().decode(header.substring(6)),
                                StandardCharsets.UTF_8))
                .isEqualTo("default:" + password);
    }

    @Test
    void usersXmlCarriesOnlyTheHash(@TempDir Path dir) throws Exception {
        String hash = ClickHousePassword.sha256Hex("secret-password");
        ClickHouseServerConfig c =
                new ClickHouseServerConfig(
                        dir.resolve("ch"), dir.resolve("logs"), "ch", 1, 1, 2, 1L, "", "", hash);
        c.write();
        String users = Files.readString(dir.resolve("ch/users.xml"));
        assertThat(users)
                .contains("<password_sha256_hex>" + hash + "</password_sha256_hex>")
                .doesNotContain("secret-password")
                .doesNotContain("<password></password>");
        assertThat(
                        PosixFilePermissions.toString(
                                Files.getPosixFilePermissions(dir.resolve("ch/users.xml"))))
                .isEqualTo("rw-------");
        ClickHouseServerConfig open =
                new ClickHouseServerConfig(
                        dir.resolve("ch2"), dir.resolve("logs"), "ch", 1, 1, 2, 1L, "", "");
        assertThat(open.usersXml()).contains("<password></password>");
    }
}
