// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.config;

/**
 * A configuration the component cannot run with: an unknown key, a value of the wrong type or out
 * of range, a secret given as a flag. The message names the key and where the value came from.
 * Commands report it on one line and exit with 2.
 */
public class ConfigException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
