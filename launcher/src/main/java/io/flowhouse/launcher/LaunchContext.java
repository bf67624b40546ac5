// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.launcher;

import io.flowhouse.services.FlowhouseHome;
import java.io.InputStream;
import java.io.PrintStream;
import java.util.Map;

/**
 * What every command runs with: the checkout and state directory, the environment, and the streams
 * (the process's own under {@code ./flowhouse}, captured ones in tests).
 */
public record LaunchContext(
        FlowhouseHome home,
        Map<String, String> env,
        InputStream stdin,
        PrintStream out,
        PrintStream err) {}
