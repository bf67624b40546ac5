// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.flow.IpAddress;

/**
 * An interface name an exporter sent in options data ({@code interfaceName}, IE 82, with the {@code
 * ifIndex} in the options record's scope), from decode to the enrich stage.
 *
 * @param exporter the exporter's address
 * @param ifIndex the interface's index
 * @param name the name, as decoded (bounded by the options string limit)
 */
public record OptionsInterfaceName(IpAddress exporter, long ifIndex, String name) {}
