// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.enrich.snmp;

import java.util.Locale;

/**
 * How to talk to the agents of the exporters in {@code cidr}: v2c with a community, or v3 with a
 * USM user (no auth, auth, or auth and priv).
 */
public record SnmpCredential(
        Cidr cidr,
        Version version,
        String community,
        String user,
        AuthProtocol authProtocol,
        String authPassphrase,
        PrivProtocol privProtocol,
        String privPassphrase) {

    public enum Version {
        V2C,
        V3
    }

    public enum AuthProtocol {
        NONE,
        MD5,
        SHA,
        SHA224,
        SHA256,
        SHA384,
        SHA512
    }

    public enum PrivProtocol {
        NONE,
        DES,
        AES,
        AES192,
        AES256
    }

    public SnmpCredential {
        if (cidr == null || version == null) {
            throw new IllegalArgumentException("cidr and version are required");
        }
        authProtocol = authProtocol == null ? AuthProtocol.NONE : authProtocol;
        privProtocol = privProtocol == null ? PrivProtocol.NONE : privProtocol;
        if (version == Version.V2C) {
            if (community == null || community.isEmpty()) {
                throw new IllegalArgumentException(cidr + ": v2c needs a community");
            }
        } else {
            if (user == null || user.isEmpty()) {
                throw new IllegalArgumentException(cidr + ": v3 needs a user");
            }
            if (authProtocol != AuthProtocol.NONE && shortPassphrase(authPassphrase)) {
                throw new IllegalArgumentException(
                        cidr + ": auth-passphrase of at least 8 characters needed");
            }
            if (privProtocol != PrivProtocol.NONE) {
                if (authProtocol == AuthProtocol.NONE) {
                    throw new IllegalArgumentException(cidr + ": priv needs auth");
                }
                if (shortPassphrase(privPassphrase)) {
                    throw new IllegalArgumentException(
                            cidr + ": priv-passphrase of at least 8 characters needed");
                }
            }
        }
    }

    public static SnmpCredential v2c(String cidr, String community) {
        return new SnmpCredential(
                Cidr.parse(cidr), Version.V2C, community, null, null, null, null, null);
    }

    public static SnmpCredential v3(
            String cidr,
            String user,
            AuthProtocol auth,
            String authPassphrase,
            PrivProtocol priv,
            String privPassphrase) {
        return new SnmpCredential(
                Cidr.parse(cidr),
                Version.V3,
                null,
                user,
                auth,
                authPassphrase,
                priv,
                privPassphrase);
    }

    /** What logs show: never a community or a passphrase. */
    public String describe() {
        return version == Version.V2C
                ? "v2c"
                : "v3 user "
                        + user
                        + " "
                        + authProtocol.name().toLowerCase(Locale.ROOT)
                        + "/"
                        + privProtocol.name().toLowerCase(Locale.ROOT);
    }

    @Override
    public String toString() {
        return cidr + " " + describe();
    }

    private static boolean shortPassphrase(String p) {
        // RFC 3414 asks for at least 8 characters; net-snmp refuses shorter ones too.
        return p == null || p.length() < 8;
    }
}
