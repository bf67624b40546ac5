// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import java.net.InetAddress;
import java.util.Optional;

/**
 * What is known about an exporter's interfaces and its own name, from one source (SNMP, options
 * data, static rules). Lookups run on the flow path: they answer from memory at once and never wait
 * on the network; a source that learns asynchronously answers empty until it knows.
 */
public interface InterfaceDirectory {

    /** The interface {@code ifIndex} of {@code exporter}, or empty when not (yet) known. */
    Optional<InterfaceInfo> lookupInterface(InetAddress exporter, long ifIndex);

    /** The exporter's own name (SNMP {@code sysName}, or configured), or empty. */
    Optional<String> exporterName(InetAddress exporter);

    /**
     * Tells the source that {@code exporter} sends flows, so an asynchronous source (SNMP) can
     * start learning about it. Cheap, never blocks; a source that needs nothing ignores it.
     */
    default void observe(InetAddress exporter) {}

    /** {@link #version()} of a source that cannot tell when its answers change. */
    long UNVERSIONED = -1;

    /**
     * A number that changes whenever an answer of this source may have changed (never negative), or
     * {@link #UNVERSIONED}: a caller that keeps what it derived from the answers may reuse it while
     * the version stays the same, without asking again.
     */
    default long version() {
        return UNVERSIONED;
    }
}
