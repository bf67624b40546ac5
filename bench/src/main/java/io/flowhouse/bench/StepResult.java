// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.bench;

import java.util.Map;

/**
 * One step of a drop-free search: the load offered to one system for a while, and what came out.
 *
 * @param system the system under test
 * @param targetRate flows per second asked of loadgen
 * @param achievedRate flows per second loadgen actually sent
 * @param rateHeld whether loadgen held the target within 2 %
 * @param sentFlows flows sent
 * @param sentDatagrams datagrams sent
 * @param unit what {@code expected} and {@code delivered} count: datagrams or flows
 * @param expected units that should have been delivered
 * @param delivered units delivered (Kafka records, flows in files)
 * @param kernelDrops datagrams the kernel dropped on the system's UDP socket(s) in the step
 * @param internalDrops the system's own drop and reject counters in the step, by reason
 * @param cpuPercent CPU of each process over the step, percent of one core
 * @param peakRssMb peak resident memory of each process, MiB
 * @param seconds wall time of the step (load + drain)
 * @param visibility when the step's rows became visible (e2e), or null where the stage does not
 *     measure it
 */
record StepResult(
        String system,
        double targetRate,
        double achievedRate,
        boolean rateHeld,
        long sentFlows,
        long sentDatagrams,
        String unit,
        long expected,
        long delivered,
        long kernelDrops,
        Map<String, Long> internalDrops,
        Map<String, Double> cpuPercent,
        Map<String, Long> peakRssMb,
        double seconds,
        Visibility visibility) {

    /** A step of a stage that does not measure visibility. */
    StepResult(
            String system,
            double targetRate,
            double achievedRate,
            boolean rateHeld,
            long sentFlows,
            long sentDatagrams,
            String unit,
            long expected,
            long delivered,
            long kernelDrops,
            Map<String, Long> internalDrops,
            Map<String, Double> cpuPercent,
            Map<String, Long> peakRssMb,
            double seconds) {
        this(
                system,
                targetRate,
                achievedRate,
                rateHeld,
                sentFlows,
                sentDatagrams,
                unit,
                expected,
                delivered,
                kernelDrops,
                internalDrops,
                cpuPercent,
                peakRssMb,
                seconds,
                null);
    }

    long lost() {
        return Math.max(0, expected - delivered);
    }

    double lossPercent() {
        return expected == 0 ? 0.0 : 100.0 * lost() / expected;
    }

    long internalDropTotal() {
        return internalDrops.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * Flows sent per CPU-second of each process over the step (load and drain): what a process
     * costs per flow, a figure that holds on a loaded machine where rates do not.
     */
    Map<String, Double> flowsPerCpuSecond() {
        Map<String, Double> out = new java.util.LinkedHashMap<>();
        cpuPercent.forEach(
                (n, pct) -> {
                    double cpuSeconds = pct / 100.0 * seconds;
                    if (cpuSeconds > 0) {
                        out.put(n, sentFlows / cpuSeconds);
                    }
                });
        return out;
    }

    /** No unit missing, no kernel drop, no internal drop. */
    boolean clean() {
        return lost() == 0 && delivered >= expected && kernelDrops == 0 && internalDropTotal() == 0;
    }

    /**
     * Whether the system kept up with the offered rate: every row visible within the bound after
     * the load ended. Null where the stage does not measure visibility.
     */
    Boolean sustained() {
        return visibility == null ? null : visibility.withinLag();
    }

    /**
     * What the search climbs on: clean, and sustained where the stage measures it. Only such a step
     * is drop-free.
     */
    boolean dropFree() {
        return clean() && !Boolean.FALSE.equals(sustained());
    }
}
