// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.sinks.clickhouse;

import com.clickhouse.client.api.ClickHouseException;
import com.clickhouse.client.api.ConnectionInitiationException;
import com.clickhouse.client.api.DataTransferException;
import com.clickhouse.client.api.ServerException;
import com.clickhouse.client.api.TransportException;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Classifies ClickHouse failures: retriable (the server is down, busy, or slow: a later attempt can
 * succeed with the same data) or not (bad data, missing table, wrong credentials: retrying cannot
 * help and the job must fail). The server error code comes from the client's {@link
 * ServerException#getCode()} or, for servers that send no {@code X-ClickHouse-Exception-Code}
 * header (18.16), from the {@code Code: N} text.
 */
public final class ClickHouseErrors {

    private static final Pattern CODE = Pattern.compile("Code: (\\d+)");

    /** Server error codes worth retrying. */
    static final Set<Integer> RETRIABLE_CODES =
            Set.of(
                    3, // UNEXPECTED_END_OF_FILE: the connection broke mid-request
                    159, // TIMEOUT_EXCEEDED
                    164, // READONLY: a replica in read-only mode while it recovers
                    202, // TOO_MANY_SIMULTANEOUS_QUERIES
                    203, // NO_FREE_CONNECTION
                    209, // SOCKET_TIMEOUT
                    210, // NETWORK_ERROR
                    241, // MEMORY_LIMIT_EXCEEDED: another query may free memory
                    242, // TABLE_IS_READ_ONLY
                    252, // TOO_MANY_PARTS: merges will catch up
                    285, // TOO_FEW_LIVE_REPLICAS
                    319, // UNKNOWN_STATUS_OF_INSERT
                    425, // SYSTEM_ERROR
                    999); // KEEPER_EXCEPTION

    private ClickHouseErrors() {}

    /** The ClickHouse error code in the chain, or -1 when there is none. */
    public static int serverCode(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ServerException se && se.getCode() > 0) {
                return se.getCode();
            }
            if (c instanceof ClickHouseException && c.getMessage() != null) {
                Matcher m = CODE.matcher(c.getMessage());
                if (m.find()) {
                    return Integer.parseInt(m.group(1));
                }
            }
            if (c.getCause() == c) {
                break;
            }
        }
        return -1;
    }

    /** The HTTP status of a server error in the chain, or -1. */
    static int httpStatus(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof ServerException se) {
                return se.getTransportProtocolCode();
            }
        }
        return -1;
    }

    /** True when trying the same request again later can succeed. */
    public static boolean isRetriable(Throwable t) {
        Throwable root = t instanceof ExecutionException && t.getCause() != null ? t.getCause() : t;
        int code = serverCode(root);
        if (code > 0) {
            return RETRIABLE_CODES.contains(code);
        }
        int status = httpStatus(root);
        if (status == 502 || status == 503 || status == 504 || status == 429) {
            return true;
        }
        for (Throwable c = root; c != null; c = c.getCause()) {
            if (c instanceof ConnectionInitiationException
                    || c instanceof DataTransferException
                    || c instanceof TransportException
                    || c instanceof IOException
                    || c instanceof TimeoutException) {
                return true;
            }
            if (c instanceof ClickHouseException che && che.isRetryable()) {
                return true;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        // A server error without a code (a proxy in between) on a 5xx status.
        return status >= 500 && code < 0;
    }
}
