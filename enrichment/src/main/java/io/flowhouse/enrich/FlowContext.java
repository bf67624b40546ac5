// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich;

import io.flowhouse.enrich.rules.Attributes;
import io.flowhouse.enrich.rules.InterfaceContext;

/**
 * Everything enrichment adds to one flow, carried beside the flow rather than inside it: the flow
 * record keeps what the exporter sent, and a sink that does not store context never pays for it.
 * Empty strings and 0 mean unknown.
 *
 * @param exporter the exporter's name (rules, else the sources), role, site, region, tenant
 * @param in the input interface
 * @param out the output interface
 * @param srcCountry ISO 3166-1 alpha-2, or ""
 * @param dstCountry ISO 3166-1 alpha-2, or ""
 * @param srcAs the AS number to store, per the configured order
 * @param dstAs the AS number to store, per the configured order
 * @param srcNetwork the source's network attributes from the rules
 * @param dstNetwork the destination's network attributes from the rules
 * @param inVrfName the name of the flow's ingress VRF (options data's {@code VRFname}), or ""
 * @param outVrfName the name of the flow's egress VRF, or ""
 */
public record FlowContext(
        Attributes exporter,
        InterfaceContext in,
        InterfaceContext out,
        String srcCountry,
        String dstCountry,
        long srcAs,
        long dstAs,
        Attributes srcNetwork,
        Attributes dstNetwork,
        String inVrfName,
        String outVrfName) {

    /** A context without VRF names. */
    public FlowContext(
            Attributes exporter,
            InterfaceContext in,
            InterfaceContext out,
            String srcCountry,
            String dstCountry,
            long srcAs,
            long dstAs,
            Attributes srcNetwork,
            Attributes dstNetwork) {
        this(
                exporter,
                in,
                out,
                srcCountry,
                dstCountry,
                srcAs,
                dstAs,
                srcNetwork,
                dstNetwork,
                "",
                "");
    }

    /** This context with the flow's VRF names. */
    public FlowContext withVrfNames(String in, String out) {
        return new FlowContext(
                exporter,
                this.in,
                this.out,
                srcCountry,
                dstCountry,
                srcAs,
                dstAs,
                srcNetwork,
                dstNetwork,
                in,
                out);
    }
}
