// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.config.ConfigException;
import io.flowhouse.config.cli.ConfigFlags;
import io.flowhouse.services.ServicesConfig;
import io.flowhouse.services.ServicesKeys;
import picocli.CommandLine.Command;

/**
 * The flags of the local services, shared by every command that talks to them: one per key of
 * {@link ServicesKeys} ({@code --kafka-port N}, ...), added to the command by {@link
 * FlowhouseMain}. A flag beats the saved ports of the last {@code up}, which beat the environment
 * variable ({@code FLOWHOUSE_KAFKA_PORT}), which beats the default; only {@code status}, {@code
 * down}, {@code query} and the job commands read the saved ports.
 */
@Command
final class ServicesOptions {

    private final ConfigFlags flags = new ConfigFlags(ServicesKeys.SCHEMA);

    /** The flags, as a picocli mixin of the command that holds these options. */
    ConfigFlags flags() {
        return flags;
    }

    /**
     * Defaults, then the environment, then the ports saved by the last {@code services up} (when
     * {@code useSaved}), then these flags.
     */
    ServicesConfig config(LaunchContext ctx, boolean useSaved) {
        try {
            return ServicesConfig.resolve(
                    ctx.home().root(), ctx.home().stateDir(), flags.resolver(ctx.env()), useSaved);
        } catch (ConfigException e) {
            throw new UsageError(e.getMessage());
        }
    }
}
