// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec;

import io.flowhouse.codec.flow.IpAddress;

/**
 * Who sent a datagram: the exporter's address and UDP source port. This one identity goes from the
 * agent's envelope and Kafka key ({@code envelope.ExporterPartitionKey}) through the job's keys and
 * state to the records and statistics. Which exporters share templates is the caller's rule, not
 * the decoder's (GoFlow2's decoder "is not aware of the router"): the caller's template cache
 * decides where a {@link io.flowhouse.codec.template.TemplateScope} is stored.
 *
 * @param address exporter address (IPv4 as mapped IPv6)
 * @param port exporter UDP source port (uint16); 0 (not a valid source port) stands for every port
 *     of the address where a caller scopes templates by address only
 */
public record ExporterKey(IpAddress address, int port) {

    public ExporterKey {
        if (address == null) {
            throw new IllegalArgumentException("address is null");
        }
        if (port < 0 || port > 0xffff) {
            throw new IllegalArgumentException("port " + port + " (expected: 0..65535)");
        }
    }

    /** As the record's, checking identity first (cache keys are usually the same instance). */
    @Override
    public boolean equals(Object o) {
        return o == this
                || (o instanceof ExporterKey k && port == k.port && address.equals(k.address));
    }

    /**
     * The value the record would compute (31 * address hash + port), written out: it is hashed for
     * every template and options look-up, and the generated method-handle chain inlines poorly.
     */
    @Override
    public int hashCode() {
        return 31 * address.hashCode() + port;
    }

    /** {@code addr:port}, IPv6 in brackets. */
    @Override
    public String toString() {
        return address.isIpv4() ? address + ":" + port : "[" + address + "]:" + port;
    }
}
