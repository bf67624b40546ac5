// SPDX-License-Identifier: Apache-2.0
package io.flowhouse.agent.udp;

import io.flowhouse.agent.config.AgentConfig;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NetFlow/IPFIX UDP listeners: for each configured address, {@code sockets-per-listener}
 * sockets bound with SO_REUSEPORT (epoll; the kernel spreads exporters over them by 4-tuple hash,
 * so one exporter always lands on one socket and one event-loop thread, which keeps its order),
 * each with a large SO_RCVBUF and a fixed 65,535-byte receive buffer (Netty's default 2,048
 * silently truncates larger datagrams). Without epoll, NIO binds one socket per address.
 */
public final class UdpReceiver implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(UdpReceiver.class);

    private final AgentConfig.Udp config;
    private final ChannelHandler handler;
    private final List<Channel> channels = new ArrayList<>();
    private EventLoopGroup group;
    private boolean epoll;
    private int receiveBuffer = -1;
    private PooledByteBufAllocator allocator;

    public UdpReceiver(AgentConfig.Udp config, ChannelHandler handler) {
        this.config = config;
        this.handler = handler;
    }

    /** Binds every socket; throws if any address cannot be bound (after closing what was bound). */
    public UdpReceiver start() throws InterruptedException, java.net.UnknownHostException {
        epoll = config.nativeTransport() && Epoll.isAvailable();
        int perListener = epoll ? config.socketsPerListener() : 1;
        int threads = Math.max(1, perListener);
        DefaultThreadFactory threadFactory = new DefaultThreadFactory("flowhouse-udp", true);
        Bootstrap b = new Bootstrap();
        int allocation = config.maxDatagramBytes();
        if (epoll) {
            group = new EpollEventLoopGroup(threads, threadFactory);
            b.group(group).channel(EpollDatagramChannel.class);
            b.option(EpollChannelOption.SO_REUSEPORT, true);
            if (config.datagramsPerRead() > 1) {
                // recvmmsg: one system call fills up to N slots of max-datagram-bytes each.
                b.option(EpollChannelOption.MAX_DATAGRAM_PAYLOAD_SIZE, config.maxDatagramBytes());
                allocation = config.maxDatagramBytes() * config.datagramsPerRead();
            }
        } else {
            group = new NioEventLoopGroup(threads, threadFactory);
            b.group(group).channel(NioDatagramChannel.class);
        }
        // A pool whose chunks hold several receive buffers: with Netty's default 4 MiB chunks a
        // 1 MiB recvmmsg buffer moves its chunk out of the init list, and every release then
        // frees and re-creates the chunk (seen in profiles as PoolChunk.<init> and Cleaner).
        int maxOrder = 11;
        while (maxOrder < 14 && (8192L << maxOrder) < 8L * allocation) {
            maxOrder++;
        }
        allocator = new PooledByteBufAllocator(true, 0, threads, 8192, maxOrder, 256, 64, true);
        b.option(ChannelOption.ALLOCATOR, allocator);
        b.option(ChannelOption.SO_RCVBUF, config.receiveBufferBytes())
                .option(ChannelOption.RCVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(allocation))
                .handler(handler);
        try {
            for (AgentConfig.Listener l : config.listeners()) {
                InetAddress host = InetAddress.getByName(l.host());
                int port = l.port();
                for (int i = 0; i < perListener; i++) {
                    Channel ch = b.bind(new InetSocketAddress(host, port)).sync().channel();
                    channels.add(ch);
                    if (ch instanceof EpollDatagramChannel e) {
                        receiveBuffer =
                                ReceiveBuffers.force(
                                        e.fd().intValue(), config.receiveBufferBytes());
                    }
                    // An ephemeral port (0) is fixed by the first socket; the others join it.
                    port = ((InetSocketAddress) ch.localAddress()).getPort();
                }
                LOG.info(
                        "listening on udp {} port {} ({} socket(s), {}, receive buffer asked {},"
                                + " kernel reports {})",
                        l.host(),
                        port,
                        perListener,
                        epoll ? "epoll, recvmmsg x" + config.datagramsPerRead() : "nio",
                        config.receiveBufferBytes(),
                        receiveBuffer);
            }
        } catch (Exception e) {
            close();
            throw e;
        }
        return this;
    }

    /** The local ports actually bound (ephemeral ports resolved). */
    public Set<Integer> boundPorts() {
        Set<Integer> ports = new LinkedHashSet<>();
        for (Channel ch : channels) {
            ports.add(((InetSocketAddress) ch.localAddress()).getPort());
        }
        return ports;
    }

    /** The first bound address of each listener, for tests and logs. */
    public List<InetSocketAddress> localAddresses() {
        List<InetSocketAddress> out = new ArrayList<>();
        for (Channel ch : channels) {
            InetSocketAddress a = (InetSocketAddress) ch.localAddress();
            if (!out.contains(a)) {
                out.add(a);
            }
        }
        return out;
    }

    public boolean isEpoll() {
        return epoll;
    }

    /** Closes every socket and waits for in-flight datagrams to be handled. */
    @Override
    public void close() {
        for (Channel ch : channels) {
            ch.close().awaitUninterruptibly();
        }
        channels.clear();
        if (group != null) {
            group.shutdownGracefully(0, 5, TimeUnit.SECONDS).awaitUninterruptibly();
            group = null;
        }
    }
}
