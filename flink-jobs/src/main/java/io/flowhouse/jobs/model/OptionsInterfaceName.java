// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.flow.IpAddress;

/**
 * An interface's name and description as an exporter sent them in options data ({@code
 * interfaceName}, IE 82, {@code interfaceDescription}, IE 83, with the {@code ifIndex} in the
 * options record's scope), from decode to the enrich stage.
 *
 * @param exporter the exporter's address
 * @param ifIndex the interface's index, or {@code OptionsData.OBSERVED_INTERFACE} for a name sent
 *     without one (the interface the exporter's metering process observes)
 * @param name the name, as decoded (bounded by the options string limit); empty if not sent
 * @param description the description, as the name; empty (or null, restored from state written
 *     before descriptions were carried) if not sent
 */
public record OptionsInterfaceName(
        IpAddress exporter, long ifIndex, String name, String description) {

    /** A name without a description. */
    public OptionsInterfaceName(IpAddress exporter, long ifIndex, String name) {
        this(exporter, ifIndex, name, "");
    }
}
