// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Counts what reaches it, under a name, in this JVM (the MiniCluster runs in the test's JVM): for
 * tests that need how many flows came out, not the flows.
 */
final class CountingSink<T> implements Sink<T> {

    private static final ConcurrentHashMap<String, AtomicLong> COUNTS = new ConcurrentHashMap<>();

    private final String name;

    CountingSink(String name) {
        this.name = name;
        COUNTS.put(name, new AtomicLong());
    }

    static long count(String name) {
        AtomicLong n = COUNTS.get(name);
        return n == null ? 0 : n.get();
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) {
        AtomicLong n = COUNTS.computeIfAbsent(name, k -> new AtomicLong());
        return new SinkWriter<>() {
            @Override
            public void write(T element, Context context) {
                n.incrementAndGet();
            }

            @Override
            public void flush(boolean endOfInput) {}

            @Override
            public void close() {}
        };
    }
}
