// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.jobs.it;

import java.io.IOException;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;

/**
 * Wraps a sink so that subtask 0, on its first attempt only, fails after {@code failAfter} records:
 * a TaskManager failure in the middle of the stream. The attempt number comes from Flink, so no
 * state outside the job decides when to fail.
 */
final class FailOnceSink<T> implements Sink<T> {

    private final Sink<T> delegate;
    private final long failAfter;

    FailOnceSink(Sink<T> delegate, long failAfter) {
        this.delegate = delegate;
        this.failAfter = failAfter;
    }

    @Override
    public SinkWriter<T> createWriter(WriterInitContext context) throws IOException {
        SinkWriter<T> w = delegate.createWriter(context);
        boolean fail =
                context.getTaskInfo().getAttemptNumber() == 0
                        && context.getTaskInfo().getIndexOfThisSubtask() == 0;
        return fail ? new Failing<>(w, failAfter) : w;
    }

    @SuppressWarnings("try") // SinkWriter.close() throws Exception, as the interface does
    private static final class Failing<T> implements SinkWriter<T> {
        private final SinkWriter<T> w;
        private long left;

        Failing(SinkWriter<T> w, long left) {
            this.w = w;
            this.left = left;
        }

        @Override
        public void write(T element, Context context) throws IOException, InterruptedException {
            if (--left < 0) {
                throw new IOException("injected failure: the first attempt dies mid-stream");
            }
            w.write(element, context);
        }

        @Override
        public void flush(boolean endOfInput) throws IOException, InterruptedException {
            w.flush(endOfInput);
        }

        @Override
        public void close() throws Exception {
            w.close();
        }
    }
}
