// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.codec.bench;

import io.flowhouse.codec.CaptureDatagrams;
import java.io.DataOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Writes the UDP payloads of shared captures to {@code target/bench/<capture>.dgrams} (u16
 * big-endian length + payload each), the input of the Go peer bench (bench/goflow2). Usage: {@code
 * ExportDatagrams CAPTURE...}.
 */
public final class ExportDatagrams {

    private ExportDatagrams() {}

    public static void main(String[] args) throws Exception {
        Path out = Files.createDirectories(Paths.get("target", "bench"));
        for (String capture : args) {
            Path file = out.resolve(capture + ".dgrams");
            int n = 0;
            try (OutputStream os = Files.newOutputStream(file);
                    DataOutputStream d = new DataOutputStream(os)) {
                for (CaptureDatagrams.Datagram g : CaptureDatagrams.datagrams(capture)) {
                    d.writeShort(g.payload().length);
                    d.write(g.payload());
                    n++;
                }
            }
            System.out.println(file + ": " + n + " datagrams");
        }
    }
}
