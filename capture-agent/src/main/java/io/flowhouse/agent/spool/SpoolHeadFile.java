// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.spool;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.Consumer;

/**
 * The spool's {@code head} file: one line {@code SEGMENT OFFSET}, the first record not yet
 * delivered, replaced by an atomic rename on every write (not forced: after a power loss the head
 * may lag, and records delivered since are sent again).
 */
final class SpoolHeadFile {

    static final String NAME = "head";

    /** Segment number (from 1) and byte offset in it. */
    record Position(long segment, long offset) {}

    private SpoolHeadFile() {}

    /**
     * The head of the spool in {@code dir}; null when there is none, or when it cannot be read or
     * parsed, which {@code bad} is told in words.
     */
    static Position read(Path dir, Consumer<String> bad) {
        Path head = dir.resolve(NAME);
        if (!Files.exists(head)) {
            return null;
        }
        String text;
        try {
            text = Files.readString(head, StandardCharsets.ISO_8859_1).trim();
        } catch (IOException e) {
            bad.accept("cannot be read (" + e + ")");
            return null;
        }
        String[] parts = text.split(" ");
        if (parts.length == 2
                && parts[0].matches("[0-9]{1,18}")
                && parts[1].matches("[0-9]{1,18}")
                && Long.parseLong(parts[0]) > 0) {
            return new Position(Long.parseLong(parts[0]), Long.parseLong(parts[1]));
        }
        String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        bad.accept("holds \"" + shown.replaceAll("[^\\x20-\\x7e]", "?") + "\"");
        return null;
    }

    /** Replaces the head of the spool in {@code dir} (atomically where the file system can). */
    static void write(Path dir, long segment, long offset) throws IOException {
        Path tmp = dir.resolve(NAME + ".tmp");
        Files.writeString(tmp, segment + " " + offset + "\n", StandardCharsets.US_ASCII);
        try {
            Files.move(
                    tmp,
                    dir.resolve(NAME),
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, dir.resolve(NAME), StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
