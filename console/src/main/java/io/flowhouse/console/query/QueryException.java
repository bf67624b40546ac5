// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.console.query;

/** A query that failed or may not run, with the HTTP status the API answers. */
public final class QueryException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final int serverCode;

    public QueryException(int status, String message, int serverCode) {
        super(message);
        this.status = status;
        this.serverCode = serverCode;
    }

    /** A request the console refuses (400). */
    public static QueryException bad(String message) {
        return new QueryException(400, message, -1);
    }

    /**
     * A server error: its limits (rows to read, time, result size, memory) are the user's to fix by
     * narrowing the view (422); anything else is the server's (502).
     */
    static QueryException fromServer(int httpStatus, String body, int code) {
        String text = body.strip();
        int cut = text.indexOf(", e.what()");
        if (cut > 0) {
            text = text.substring(0, cut);
        }
        if (text.length() > 400) {
            text = text.substring(0, 400) + "...";
        }
        return switch (code) {
            case 158, 396 ->
                    new QueryException(
                            422,
                            "the view would read or return more rows than the console's limits"
                                    + " allow: narrow the range or the filter ("
                                    + text
                                    + ")",
                            code);
            case 159, 160 ->
                    new QueryException(
                            422,
                            "the query ran into the console's time limit: narrow the range or"
                                    + " the filter ("
                                    + text
                                    + ")",
                            code);
            case 241 ->
                    new QueryException(
                            422, "the query ran into the memory limit (" + text + ")", code);
            default ->
                    new QueryException(502, "clickhouse (HTTP " + httpStatus + "): " + text, code);
        };
    }

    public int status() {
        return status;
    }

    /** ClickHouse's error code, -1 when none. */
    public int serverCode() {
        return serverCode;
    }
}
