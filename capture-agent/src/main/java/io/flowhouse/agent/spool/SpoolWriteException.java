// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import java.io.IOException;
import java.nio.file.FileSystemException;

/** A write the spool could not make; the spool stays consistent and tries again later. */
public final class SpoolWriteException extends IOException {
    private static final long serialVersionUID = 1L;

    private final boolean noSpace;

    SpoolWriteException(IOException cause) {
        super(cause.getMessage(), cause);
        this.noSpace = isNoSpace(cause);
    }

    /** Whether the file system was full (ENOSPC), rather than another I/O error. */
    public boolean noSpace() {
        return noSpace;
    }

    /** Whether {@code e} (or a cause) says the file system is full. */
    public static boolean isNoSpace(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m =
                    t instanceof FileSystemException f && f.getReason() != null
                            ? f.getReason()
                            : t.getMessage();
            if (m != null && m.contains("No space left on device")) {
                return true;
            }
            if (t instanceof SpoolWriteException s) {
                return s.noSpace;
            }
        }
        return false;
    }
}
