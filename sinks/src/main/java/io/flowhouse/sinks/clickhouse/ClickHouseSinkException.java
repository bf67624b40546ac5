// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import java.io.IOException;

/** A ClickHouse request that failed, with the server's error code and whether to retry it. */
public class ClickHouseSinkException extends IOException {

    private static final long serialVersionUID = 1L;

    private final int serverCode;
    private final boolean retriable;

    public ClickHouseSinkException(
            String message, Throwable cause, int serverCode, boolean retriable) {
        super(message, cause);
        this.serverCode = serverCode;
        this.retriable = retriable;
    }

    public ClickHouseSinkException(String message) {
        this(message, null, -1, false);
    }

    /** The ClickHouse error code ({@code Code: N}), or -1. */
    public int serverCode() {
        return serverCode;
    }

    public boolean isRetriable() {
        return retriable;
    }
}
