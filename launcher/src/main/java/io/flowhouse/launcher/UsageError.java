// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

/**
 * A command-line mistake found while a command runs (a value that parses but makes no sense):
 * printed like a parse error, with the hint to {@code --help}, exit code {@value ExitCode#USAGE}.
 */
public final class UsageError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageError(String message) {
        super(message);
    }
}
