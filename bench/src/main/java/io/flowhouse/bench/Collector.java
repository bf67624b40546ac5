// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.util.List;
import java.util.Map;

/**
 * A system under test that receives the load on a UDP port and delivers it somewhere countable: the
 * Flowhouse agent (datagrams to Kafka), goflow2 (flows to Kafka), nfcapd (flows to files).
 *
 * <p>Per step: {@link #beginStep()}, the load, {@link #awaitDrained(long)}, CPU sampling, then
 * {@link #finishStep()} for the count delivered during the step.
 */
interface Collector {

    String name();

    /** What {@link #finishStep()} counts: "datagrams" or "flows". */
    String unit();

    /** The UDP port the load goes to. */
    int port();

    /** Starts what is started once (processes, topics). */
    void open() throws Exception;

    /** Takes the baselines of a step; may start a per-step process. */
    void beginStep() throws Exception;

    /**
     * Waits until what was received has been processed, at most {@code maxMillis}: {@code expected}
     * delivered units, or no progress for two seconds.
     */
    void awaitDrained(long expected, long maxMillis) throws Exception;

    /** Told what loadgen sent in the step, before draining (for exact checks). */
    default void loadSent(io.flowhouse.loadgen.report.RunSummary load) {}

    /** Units delivered during the step (ends per-step processes). */
    long finishStep() throws Exception;

    /**
     * When the rows of the step just finished became visible, for systems whose output is read by a
     * query; null for the others (their steps are judged by the counts alone).
     */
    default Visibility visibility() {
        return null;
    }

    /** Counters of data the system itself dropped or rejected, cumulative, by reason. */
    Map<String, Long> internalDrops() throws Exception;

    /** Processes whose CPU and memory are reported: name to pid (live during a step). */
    Map<String, Long> processes();

    /** Extra notes for the report (versions, settings). */
    List<String> notes();

    /** Stops its processes and removes its topics. */
    void close() throws Exception;
}
