// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Everything the capture agent is configured with: one record per component. Resolved from the keys
 * declared in {@link AgentKeys}: defaults, then a YAML file, the environment and flags.
 *
 * @param agentId identity written into every raw datagram envelope ({@code agent.id})
 * @param udp NetFlow/IPFIX listeners
 * @param kafka producer settings and topics
 * @param spool on-disk spool used while Kafka is unreachable
 * @param metrics Prometheus/health HTTP endpoint
 * @param packets packet capture (file or interface), off unless configured
 */
public record AgentConfig(
        String agentId, Udp udp, Kafka kafka, Spool spool, Metrics metrics, Packets packets) {

    /**
     * One UDP listen address.
     *
     * @param host literal address to bind ({@code ::} is dual-stack IPv4+IPv6 on Linux)
     * @param port UDP port
     */
    public record Listener(String host, int port) {}

    /**
     * UDP collection.
     *
     * @param enabled whether the listeners run
     * @param listeners addresses to bind
     * @param socketsPerListener sockets bound to each address with SO_REUSEPORT (epoll only; NIO
     *     binds one), spread over event-loop threads
     * @param receiveBufferBytes SO_RCVBUF asked of the kernel (capped by net.core.rmem_max)
     * @param maxDatagramBytes receive buffer per datagram; 65,535 never truncates
     * @param allowedExporters exporter CIDRs admitted; empty admits all
     * @param forwardRejected send datagrams that fail the header check to the rejected topic
     * @param nativeTransport use epoll when available (else NIO)
     * @param datagramsPerRead datagrams one recvmmsg call may return (epoll); 1 uses recvmsg
     * @param maxExporterStreams exporters each receive thread keeps a stamp stream for
     */
    public record Udp(
            boolean enabled,
            List<Listener> listeners,
            int socketsPerListener,
            int receiveBufferBytes,
            int maxDatagramBytes,
            List<String> allowedExporters,
            boolean forwardRejected,
            boolean nativeTransport,
            int datagramsPerRead,
            int maxExporterStreams) {}

    /**
     * Kafka producer.
     *
     * @param bootstrapServers broker list
     * @param rawTopic topic for accepted datagrams
     * @param rejectedTopic topic for datagrams that failed the header check
     * @param packetsTopic topic for packet summary batches
     * @param compression producer compression codec (lz4; zstd is not shipped)
     * @param lingerMs producer linger
     * @param batchBytes producer batch size per partition
     * @param bufferMemoryBytes producer buffer; when full, datagrams go to the spool
     * @param deliveryTimeout how long the producer retries one record before it is spooled again
     * @param properties extra producer properties, applied last
     * @param recordMaxDatagrams datagrams of one key per flows.raw record at most (1: no batches)
     * @param recordMaxBytes bytes of one batch record at most
     * @param recordLinger how long a batch record waits for more datagrams
     */
    public record Kafka(
            String bootstrapServers,
            String rawTopic,
            String rejectedTopic,
            String packetsTopic,
            String compression,
            int lingerMs,
            int batchBytes,
            long bufferMemoryBytes,
            Duration deliveryTimeout,
            Map<String, String> properties,
            int recordMaxDatagrams,
            int recordMaxBytes,
            Duration recordLinger) {

        /** Without batch records: each datagram its own record. */
        public Kafka(
                String bootstrapServers,
                String rawTopic,
                String rejectedTopic,
                String packetsTopic,
                String compression,
                int lingerMs,
                int batchBytes,
                long bufferMemoryBytes,
                Duration deliveryTimeout,
                Map<String, String> properties) {
            this(
                    bootstrapServers,
                    rawTopic,
                    rejectedTopic,
                    packetsTopic,
                    compression,
                    lingerMs,
                    batchBytes,
                    bufferMemoryBytes,
                    deliveryTimeout,
                    properties,
                    1,
                    256 * 1024,
                    Duration.ofMillis(2));
        }
    }

    /**
     * On-disk spool.
     *
     * @param directory where segment files live (created if missing)
     * @param maxBytes bound on the spool's size on disk; beyond it datagrams are dropped and
     *     counted
     * @param segmentBytes size at which a segment file is closed (and forced) and a new one begun
     * @param syncInterval how often the segment being written is forced to disk; zero: only at
     *     rotation and shutdown
     */
    public record Spool(Path directory, long maxBytes, long segmentBytes, Duration syncInterval) {}

    /**
     * Metrics endpoint.
     *
     * @param enabled whether the HTTP endpoint runs
     * @param host bind address
     * @param port HTTP port ({@code /metrics}, {@code /health})
     * @param maxExporters exporter addresses with their own series; the rest count as "other"
     * @param exporterTtl silence after which an exporter's series are removed
     * @param anyPortIfTaken take a free port when {@code port} is in use (a packet file read with
     *     the default port), instead of failing
     */
    public record Metrics(
            boolean enabled,
            String host,
            int port,
            int maxExporters,
            Duration exporterTtl,
            boolean anyPortIfTaken) {}

    /**
     * Packet capture.
     *
     * @param file pcap/pcapng file to read, or null
     * @param speed replay speed for a file: 0 = as fast as possible, 1.0 = recorded speed, N = N
     *     times
     * @param interfaceName interface for live capture, or null
     * @param filter BPF filter for live capture; empty captures all
     * @param snaplen bytes captured per packet (live)
     * @param promiscuous promiscuous mode (live)
     * @param bufferBytes kernel capture buffer (live)
     * @param interfaceIndex index recorded in every summary from this source
     * @param batchPackets summaries per Kafka record (at most)
     * @param batchLinger longest a partial batch waits before it is sent
     * @param clockTick a live capture quiet this long tells the job packet time goes on
     */
    public record Packets(
            Path file,
            double speed,
            String interfaceName,
            String filter,
            int snaplen,
            boolean promiscuous,
            int bufferBytes,
            int interfaceIndex,
            int batchPackets,
            Duration batchLinger,
            Duration clockTick) {

        public boolean enabled() {
            return file != null || interfaceName != null;
        }
    }
}
