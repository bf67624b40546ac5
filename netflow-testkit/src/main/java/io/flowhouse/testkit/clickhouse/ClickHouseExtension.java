// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.testkit.clickhouse;

import io.flowhouse.testkit.ContainerImages;
import io.flowhouse.testkit.ServiceRequirement;
import java.util.Locale;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension that gives a test class one real ClickHouse server for all its tests.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ClickHouseExtension CLICKHOUSE = ClickHouseExtension.create();
 *
 * @Test
 * void writes() {
 *     CLICKHOUSE.service().execute("CREATE DATABASE flowhouse");
 *     CLICKHOUSE.local().stop();   // only for the local process
 * }
 * }</pre>
 *
 * <p>When the server cannot be had (no {@code clickhouse-server} binary, or no Docker for the
 * container variant) the class is skipped, or fails when the system property {@code
 * flowhouse.it.required=true} is set, as it is in CI. Test methods may also take a {@link
 * ClickHouseService} or {@link LocalClickHouse} parameter.
 */
public final class ClickHouseExtension
        implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

    /** System property forcing the backend: {@code local} (default) or {@code container}. */
    public static final String BACKEND_PROPERTY = "flowhouse.clickhouse.backend";

    private enum Kind {
        LOCAL,
        CONTAINER
    }

    /**
     * System property for the job that has Docker: when {@code true}, a missing Docker engine fails
     * the tests made by {@link #modernWhereDockerExists()}; otherwise they are skipped (the CI
     * machine has no Docker, yet runs with {@code flowhouse.it.required=true}).
     */
    public static final String DOCKER_REQUIRED_PROPERTY = "flowhouse.it.docker.required";

    private final Kind kind;
    private final String image;
    private boolean dockerOptional;
    private ClickHouseService service;

    private ClickHouseExtension(Kind kind, String image) {
        this.kind = kind;
        this.image = image;
    }

    /**
     * The local {@code clickhouse-server} process, unless {@code
     * -Dflowhouse.clickhouse.backend=container} asks for the container.
     */
    public static ClickHouseExtension create() {
        String backend = System.getProperty(BACKEND_PROPERTY, "local").toLowerCase(Locale.ROOT);
        return new ClickHouseExtension(
                "container".equals(backend) ? Kind.CONTAINER : Kind.LOCAL,
                ContainerImages.CLICKHOUSE);
    }

    /** A modern server in a container (the given image); needs Docker. */
    public static ClickHouseExtension container(String image) {
        return new ClickHouseExtension(Kind.CONTAINER, image);
    }

    /**
     * A current server ({@link ContainerImages#CLICKHOUSE}) for the modern-feature tests: skipped
     * where there is no Docker engine unless {@value #DOCKER_REQUIRED_PROPERTY} is {@code true}.
     */
    public static ClickHouseExtension modernWhereDockerExists() {
        ClickHouseExtension e = container(ContainerImages.CLICKHOUSE);
        e.dockerOptional = true;
        return e;
    }

    /** {@link #container(String)} with {@link ContainerImages#CLICKHOUSE}. */
    public static ClickHouseExtension container() {
        return container(ContainerImages.CLICKHOUSE);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        if (service != null) {
            return;
        }
        if (kind == Kind.LOCAL) {
            ServiceRequirement.require(
                    LocalClickHouse.isAvailable(),
                    "clickhouse-server binary "
                            + LocalClickHouse.Options.defaults().binary()
                            + " (Debian package clickhouse-server)");
            service = LocalClickHouse.launch();
        } else {
            boolean docker = ContainerClickHouse.isAvailable();
            if (dockerOptional && !docker) {
                boolean required =
                        Boolean.parseBoolean(System.getProperty(DOCKER_REQUIRED_PROPERTY, "false"));
                if (required) {
                    throw new AssertionError(
                            "missing: a Docker engine for "
                                    + image
                                    + " ("
                                    + DOCKER_REQUIRED_PROPERTY
                                    + "=true)");
                }
                Assumptions.abort("missing: a Docker engine for " + image + " (skipped)");
            }
            ServiceRequirement.require(docker, "a Docker engine for " + image);
            service = ContainerClickHouse.start(image);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (service != null) {
            try {
                service.close();
            } finally {
                service = null;
            }
        }
    }

    /** The running server. */
    public ClickHouseService service() {
        if (service == null) {
            throw new IllegalStateException("clickhouse is not started (register the extension)");
        }
        return service;
    }

    /** The local process, for stop/start/kill; fails for the container backend. */
    public LocalClickHouse local() {
        if (service() instanceof LocalClickHouse l) {
            return l;
        }
        throw new IllegalStateException("not a local clickhouse-server: " + service);
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == ClickHouseService.class
                || (type == LocalClickHouse.class && kind == Kind.LOCAL);
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == LocalClickHouse.class ? local() : service();
    }
}
