// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.model;

import io.flowhouse.codec.DecodeProblem;

/**
 * A decode problem kind counted in one scope of the current exporter (the Flink key). A Flink POJO:
 * the kind is written by name, so kinds the codec adds later do not move the stored ones.
 *
 * @param version 5, 9 or 10 (0: datagrams that did not decode)
 * @param observationDomainId observation domain / source id / v5 engine (uint32)
 * @param kind what was wrong
 */
public record ProblemKey(int version, long observationDomainId, DecodeProblem.Kind kind) {

    public ProblemKey(ScopeKey scope, DecodeProblem.Kind kind) {
        this(scope.version(), scope.observationDomainId(), kind);
    }

    /** Whether the problem was counted in {@code scope}. */
    public boolean in(ScopeKey scope) {
        return version == scope.version() && observationDomainId == scope.observationDomainId();
    }
}
