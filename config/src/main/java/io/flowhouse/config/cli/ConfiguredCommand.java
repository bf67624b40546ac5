// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config.cli;

/** A command whose flags set declared keys; {@link Cli} adds those flags to its command line. */
public interface ConfiguredCommand {

    ConfigFlags configFlags();
}
