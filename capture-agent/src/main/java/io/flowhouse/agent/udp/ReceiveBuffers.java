// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.udp;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Raises a socket's receive buffer past {@code net.core.rmem_max} with Linux {@code SO_RCVBUFFORCE}
 * (needs CAP_NET_ADMIN, e.g. root), which plain {@code SO_RCVBUF} cannot: the buffer is what
 * absorbs bursts while the receive thread is descheduled, and the sysctl default (4 MiB here, 208
 * KiB on many hosts) holds only a few tens of milliseconds at 100 K datagrams/s. Without the
 * capability the kernel refuses and the capped SO_RCVBUF stays; that is logged.
 */
final class ReceiveBuffers {

    private static final Logger LOG = LoggerFactory.getLogger(ReceiveBuffers.class);

    private static final int SOL_SOCKET = 1;
    private static final int SO_RCVBUF = 8;
    private static final int SO_RCVBUFFORCE = 33;

    private ReceiveBuffers() {}

    /** The libc calls used. */
    interface LibC extends Library {
        int setsockopt(int fd, int level, int name, IntByReference value, int len);

        int getsockopt(int fd, int level, int name, IntByReference value, IntByReference len);
    }

    private static final class Holder {
        static final LibC LIBC = load();

        private static LibC load() {
            try {
                return Native.load("c", LibC.class);
            } catch (UnsatisfiedLinkError | RuntimeException e) {
                LOG.info(
                        "libc not reachable through JNA; SO_RCVBUFFORCE unavailable: {}",
                        e.toString());
                return null;
            }
        }
    }

    /**
     * Asks for {@code bytes} with SO_RCVBUFFORCE on Linux.
     *
     * @return the buffer size the kernel reports afterwards (twice the asked value on Linux), or -1
     *     if it could not be read
     */
    static int force(int fd, int bytes) {
        LibC libc = Holder.LIBC;
        if (libc == null || !System.getProperty("os.name", "").startsWith("Linux")) {
            return -1;
        }
        int rc = libc.setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, new IntByReference(bytes), 4);
        if (rc != 0) {
            LOG.info(
                    "SO_RCVBUFFORCE refused (no CAP_NET_ADMIN?); the receive buffer stays capped"
                            + " by net.core.rmem_max");
        }
        IntByReference value = new IntByReference();
        IntByReference len = new IntByReference(4);
        if (libc.getsockopt(fd, SOL_SOCKET, SO_RCVBUF, value, len) != 0) {
            return -1;
        }
        return value.getValue();
    }
}
