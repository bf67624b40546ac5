// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.services.clickhouse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * The {@code config.xml} and {@code users.xml} of a local {@code clickhouse-server} (Debian's,
 * 18.16 on Debian 12): its own data, tmp, user files and format schema paths under one directory,
 * logs to files, HTTP and native ports on 127.0.0.1 only, user {@code default} reachable from
 * loopback only, with the password whose SHA-256 is given ({@code ./flowhouse services}: {@link
 * ClickHousePassword}) or none (the tests' temporary servers). The root element is {@code
 * <yandex>}, which every version accepts (newer ones also take {@code <clickhouse>}); no
 * interserver port and one {@code listen_host}: nothing but loopback is opened.
 *
 * <p>Written by {@link ClickHouseServer} before every start, for {@code ./flowhouse services} and
 * the tests' temporary servers alike.
 *
 * @param dir the server's directory: config.xml, users.xml, data/, tmp/, user_files/,
 *     format_schemas/
 * @param logDir where the server logs
 * @param logName log file name stem: {@code NAME.log} and {@code NAME.err.log}
 * @param logFiles rotated log files kept ({@code <count>})
 * @param httpPort HTTP port on 127.0.0.1
 * @param nativePort native (TCP) port on 127.0.0.1
 * @param maxMemoryUsage per-query memory limit of the default profile, bytes
 * @param configComment a comment after the XML declaration of config.xml, or empty for none
 * @param usersComment a comment after the XML declaration of users.xml, or empty for none
 * @param passwordSha256Hex SHA-256 (hex) of user {@code default}'s password, or empty for none
 */
public record ClickHouseServerConfig(
        Path dir,
        Path logDir,
        String logName,
        int logFiles,
        int httpPort,
        int nativePort,
        long maxMemoryUsage,
        String configComment,
        String usersComment,
        String passwordSha256Hex) {

    /** A server whose user {@code default} has no password (the tests' temporary servers). */
    public ClickHouseServerConfig(
            Path dir,
            Path logDir,
            String logName,
            int logFiles,
            int httpPort,
            int nativePort,
            long maxMemoryUsage,
            String configComment,
            String usersComment) {
        this(
                dir,
                logDir,
                logName,
                logFiles,
                httpPort,
                nativePort,
                maxMemoryUsage,
                configComment,
                usersComment,
                "");
    }

    /** The one address the server listens on. */
    public static final String LISTEN_HOST = "127.0.0.1";

    /** The directories under {@link #dir()} that the server expects to exist. */
    public static final List<String> DIRECTORIES =
            List.of("data", "tmp", "user_files", "format_schemas");

    /**
     * Creates the server's directories and the log directory, and writes config.xml and users.xml
     * into {@link #dir()}.
     */
    public void write() throws IOException {
        for (String sub : DIRECTORIES) {
            Files.createDirectories(dir.resolve(sub));
        }
        Files.createDirectories(logDir);
        Files.writeString(dir.resolve("config.xml"), configXml(), StandardCharsets.UTF_8);
        Path users = dir.resolve("users.xml");
        Files.writeString(users, usersXml(), StandardCharsets.UTF_8);
        if (!passwordSha256Hex.isEmpty()) {
            // The hash is not the password, but nobody else needs to read it either.
            Files.setPosixFilePermissions(users, PosixFilePermissions.fromString("rw-------"));
        }
    }

    public String configXml() {
        return """
                <?xml version="1.0"?>
                %s<yandex>
                  <logger>
                    <level>information</level>
                    <log>%s/%s.log</log>
                    <errorlog>%s/%s.err.log</errorlog>
                    <size>50M</size>
                    <count>%d</count>
                    <console>0</console>
                  </logger>
                  <http_port>%d</http_port>
                  <tcp_port>%d</tcp_port>
                  <listen_host>%s</listen_host>
                  <path>%s/data/</path>
                  <tmp_path>%s/tmp/</tmp_path>
                  <user_files_path>%s/user_files/</user_files_path>
                  <format_schema_path>%s/format_schemas/</format_schema_path>
                  <users_config>users.xml</users_config>
                  <default_profile>default</default_profile>
                  <default_database>default</default_database>
                  <timezone>UTC</timezone>
                  <mark_cache_size>268435456</mark_cache_size>
                  <uncompressed_cache_size>268435456</uncompressed_cache_size>
                  <max_concurrent_queries>100</max_concurrent_queries>
                  <keep_alive_timeout>10</keep_alive_timeout>
                  <mlock_executable>false</mlock_executable>
                </yandex>
                """
                .formatted(
                        comment(configComment),
                        logDir,
                        logName,
                        logDir,
                        logName,
                        logFiles,
                        httpPort,
                        nativePort,
                        LISTEN_HOST,
                        dir,
                        dir,
                        dir,
                        dir);
    }

    public String usersXml() {
        return """
                <?xml version="1.0"?>
                %s<yandex>
                  <profiles>
                    <default>
                      <max_memory_usage>%d</max_memory_usage>
                    </default>
                  </profiles>
                  <users>
                    <default>
                      %s
                      <networks><ip>127.0.0.1</ip><ip>::1</ip></networks>
                      <profile>default</profile>
                      <quota>default</quota>
                    </default>
                  </users>
                  <quotas>
                    <default>
                      <interval>
                        <duration>3600</duration>
                        <queries>0</queries>
                        <errors>0</errors>
                        <result_rows>0</result_rows>
                        <read_rows>0</read_rows>
                        <execution_time>0</execution_time>
                      </interval>
                    </default>
                  </quotas>
                </yandex>
                """
                .formatted(
                        comment(usersComment),
                        maxMemoryUsage,
                        passwordSha256Hex.isEmpty()
                                ? "<password></password>"
                                : "<password_sha256_hex>"
                                        + passwordSha256Hex
                                        + "</password_sha256_hex>");
    }

    private static String comment(String text) {
        return text.isEmpty() ? "" : "<!-- " + text + " -->\n";
    }
}
