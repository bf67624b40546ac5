// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.clickhouse;

import io.flowhouse.testkit.ContainerImages;
import java.util.List;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.clickhouse.ClickHouseContainer;

/**
 * A modern ClickHouse in a Testcontainers container, behind the same {@link ClickHouseService}
 * interface as {@link LocalClickHouse}, for the feature-detection tests that need a current server
 * (IPv6, LowCardinality, DateTime64, TTL, codecs, insert deduplication tokens). Only where a Docker
 * engine exists.
 */
public final class ContainerClickHouse implements ClickHouseService {

    private static final int HTTP_PORT = 8123;
    private static final int NATIVE_PORT = 9000;

    private final ClickHouseContainer container;
    private final ClickHouseHttp http = new ClickHouseHttp();

    private ContainerClickHouse(ClickHouseContainer container) {
        this.container = container;
    }

    /** True when Testcontainers can reach a Docker engine. */
    public static boolean isAvailable() {
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    public static ContainerClickHouse start(String image) {
        ClickHouseContainer container = new ClickHouseContainer(image);
        try {
            container.start();
            return new ContainerClickHouse(container);
        } catch (RuntimeException e) {
            container.close();
            throw e;
        }
    }

    public static ContainerClickHouse start() {
        return start(ContainerImages.CLICKHOUSE);
    }

    @Override
    public String httpUrl() {
        return "http://" + host() + ":" + httpPort();
    }

    @Override
    public String host() {
        String h = container.getHost();
        return "localhost".equals(h) ? "127.0.0.1" : h;
    }

    @Override
    public int httpPort() {
        return container.getMappedPort(HTTP_PORT);
    }

    @Override
    public int nativePort() {
        return container.getMappedPort(NATIVE_PORT);
    }

    @Override
    public String user() {
        return container.getUsername();
    }

    @Override
    public String password() {
        return container.getPassword();
    }

    @Override
    public List<String> query(String sql) {
        return http.query(httpUrl(), user(), password(), sql);
    }

    @Override
    public void close() {
        container.close();
    }
}
