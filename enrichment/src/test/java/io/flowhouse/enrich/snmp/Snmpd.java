// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import io.flowhouse.testkit.ServiceRequirement;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A real net-snmp agent ({@code snmpd}) for tests: its own config and persistent directory in a
 * temporary directory, on loopback on a free UDP port, serving this machine's interface table. A
 * v2c read community, a v2c write community (to give interfaces an ifAlias), and a v3 user with
 * SHA/AES. {@link #walk} reads it back with net-snmp's own {@code snmpwalk}.
 */
public final class Snmpd implements AutoCloseable {

    public static final String COMMUNITY = "flowtest";
    static final String WRITE_COMMUNITY = "flowrw";
    static final String USER = "flowv3";
    static final String AUTH_PASS = "authpass-flowhouse";
    static final String PRIV_PASS = "privpass-flowhouse";

    private final Process process;
    private final Path dir;
    public final int port;

    private Snmpd(Process process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /** The snmpd binary, or skip (fail when {@code flowhouse.it.required=true}). */
    static Path requireTools() {
        ServiceRequirement.requireExecutable("snmpwalk", "apt-get install snmp");
        ServiceRequirement.requireExecutable("snmpset", "apt-get install snmp");
        Path sbin = Path.of("/usr/sbin/snmpd");
        if (Files.isExecutable(sbin)) {
            return sbin;
        }
        return ServiceRequirement.requireExecutable("snmpd", "apt-get install snmpd");
    }

    public static Snmpd start(Path dir) throws Exception {
        Path binary = requireTools();
        Path persist = Files.createDirectories(dir.resolve("persist"));
        Path conf = dir.resolve("snmpd.conf");
        Files.writeString(
                conf,
                String.join(
                        "\n",
                        "rocommunity " + COMMUNITY + " 127.0.0.1",
                        "rwcommunity " + WRITE_COMMUNITY + " 127.0.0.1",
                        "createUser "
                                + USER
                                + " SHA \""
                                + AUTH_PASS
                                + "\" AES \""
                                + PRIV_PASS
                                + "\"",
                        "rouser " + USER + " priv",
                        ""));
        for (int attempt = 0; ; attempt++) {
            int port = freeUdpPort();
            ProcessBuilder pb =
                    new ProcessBuilder(
                                    binary.toString(),
                                    "-f",
                                    "-Lf",
                                    dir.resolve("snmpd.log").toString(),
                                    "-C",
                                    "-c",
                                    conf.toString(),
                                    "-p",
                                    dir.resolve("snmpd.pid").toString(),
                                    "udp:127.0.0.1:" + port)
                            .redirectErrorStream(true)
                            .redirectOutput(dir.resolve("snmpd.out").toFile());
            pb.environment().put("SNMP_PERSISTENT_DIR", persist.toString());
            pb.environment().put("MIBS", "");
            Process p = pb.start();
            Snmpd snmpd = new Snmpd(p, dir, port);
            if (snmpd.awaitAnswer()) {
                return snmpd;
            }
            snmpd.close();
            if (attempt == 2) {
                throw new IllegalStateException(
                        "snmpd did not answer on udp:127.0.0.1:"
                                + port
                                + "; its log: "
                                + tail(dir.resolve("snmpd.log")));
            }
        }
    }

    private boolean awaitAnswer() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline && process.isAlive()) {
            Result r =
                    tool(
                            "snmpget",
                            "-v2c",
                            "-c",
                            COMMUNITY,
                            "-t",
                            "1",
                            "-r",
                            "0",
                            "-On",
                            "-Oqv",
                            address(),
                            ExporterPoll.SYS_NAME.toDottedString());
            if (r.exit == 0) {
                return true;
            }
            Thread.sleep(100);
        }
        return false;
    }

    public String address() {
        return "127.0.0.1:" + port;
    }

    public List<String> v2c() {
        return List.of("-v2c", "-c", COMMUNITY);
    }

    List<String> v3() {
        return List.of(
                "-v3",
                "-l",
                "authPriv",
                "-u",
                USER,
                "-a",
                "SHA",
                "-A",
                AUTH_PASS,
                "-x",
                "AES",
                "-X",
                PRIV_PASS);
    }

    /** Sets ifAlias.ifIndex through the write community, as an operator would. */
    void setAlias(long ifIndex, String alias) throws Exception {
        Result r =
                tool(
                        "snmpset",
                        "-v2c",
                        "-c",
                        WRITE_COMMUNITY,
                        "-On",
                        address(),
                        ExporterPoll.IF_ALIAS + "." + ifIndex,
                        "s",
                        alias);
        if (r.exit != 0) {
            throw new IllegalStateException("snmpset ifAlias." + ifIndex + ": " + r.out);
        }
    }

    /**
     * {@code snmpwalk} of one column: ifIndex (last sub-identifier) to the value, octet strings
     * decoded from snmpwalk's hex dump as UTF-8, numbers as decimal text.
     */
    public Map<Long, String> walk(List<String> auth, String column) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("snmpwalk"));
        cmd.addAll(auth);
        cmd.addAll(List.of("-On", "-Oq", "-Ox", address(), column));
        Result r = tool(cmd.toArray(String[]::new));
        if (r.exit != 0) {
            throw new IllegalStateException(String.join(" ", cmd) + ": " + r.out);
        }
        Map<Long, String> values = new TreeMap<>();
        // A long hex dump goes on over several lines: a line that is no OID continues the value.
        List<String> entries = new ArrayList<>();
        for (String line : r.out.split("\n")) {
            if (line.startsWith(".")) {
                entries.add(line);
            } else if (!line.isBlank() && !entries.isEmpty()) {
                entries.set(entries.size() - 1, entries.get(entries.size() - 1) + " " + line);
            }
        }
        for (String line : entries) {
            int space = line.indexOf(' ');
            String oid = line.substring(0, space);
            String value = line.substring(space + 1).trim();
            long index = Long.parseLong(oid.substring(oid.lastIndexOf('.') + 1));
            if (value.startsWith("\"")) {
                String hex = value.substring(1, value.length() - 1).replaceAll("\\s", "");
                value = new String(HexFormat.of().parseHex(hex), StandardCharsets.UTF_8);
            }
            values.put(index, value);
        }
        return values;
    }

    /** The one value of a scalar, as {@link #walk} reads it. */
    public String get(List<String> auth, String oid) throws Exception {
        Map<Long, String> one = walk(auth, oid);
        if (one.size() != 1) {
            throw new IllegalStateException(oid + ": " + one);
        }
        return one.values().iterator().next();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static int freeUdpPort() throws IOException {
        try (DatagramSocket s = new DatagramSocket(0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    record Result(int exit, String out) {}

    static Result tool(String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("MIBS", "");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(-1, String.join(" ", command) + ": did not finish in 30 s");
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    Path dir() {
        return dir;
    }
}
