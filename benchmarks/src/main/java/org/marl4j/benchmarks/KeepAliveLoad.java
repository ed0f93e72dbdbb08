package org.marl4j.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * KeepAliveLoad is a closed-loop HTTP/1.1 load generator: one NIO selector thread drives N
 * keep-alive connections, each sending a request, waiting for the whole response, recording its
 * latency and sending the next, for a fixed time. The same cost for every server it measures;
 * {@link HttpBenchmark} runs it beside the server in one JVM, {@link SpringLoad} against an
 * application in another.
 */
final class KeepAliveLoad {
    /** Requests names the bytes of a connection's next request (its seq-th, from 0). */
    @FunctionalInterface
    interface Requests {
        byte[] request(int connection, long seq);
    }

    private final Selector selector;
    private final Conn[] conns;
    private final Requests requests;
    private long[] latencies = new long[1 << 20];
    private int count;
    private long errors;

    /** KeepAliveLoad(address, connections, requests) opens the connections (blocking connects). */
    KeepAliveLoad(InetSocketAddress address, int connections, Requests requests) throws IOException {
        this.requests = requests;
        selector = Selector.open();
        conns = new Conn[connections];
        for (int i = 0; i < connections; i++) {
            SocketChannel ch = SocketChannel.open(address);
            ch.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
            ch.configureBlocking(false);
            conns[i] = new Conn(ch, i);
            ch.register(selector, SelectionKey.OP_READ, conns[i]);
        }
    }

    /** run(nanos, record) keeps every connection busy for nanos; records latencies if asked. */
    void run(long nanos, boolean record) throws IOException {
        count = 0;
        for (Conn c : conns) {
            if (!c.inFlight) {
                c.send();
            }
        }
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            selector.select(10);
            for (SelectionKey key : selector.selectedKeys()) {
                Conn c = (Conn) key.attachment();
                long now = c.read();
                if (now < 0) {
                    continue;
                }
                if (record) {
                    if (count == latencies.length) {
                        latencies = Arrays.copyOf(latencies, count * 2);
                    }
                    latencies[count++] = now - c.sentAt;
                }
                if (System.nanoTime() - end < 0) {
                    c.send();
                }
            }
            selector.selectedKeys().clear();
        }
        // Drain what is still in flight so the next run starts clean.
        long drainEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (anyInFlight() && System.nanoTime() - drainEnd < 0) {
            selector.select(10);
            for (SelectionKey key : selector.selectedKeys()) {
                ((Conn) key.attachment()).read();
            }
            selector.selectedKeys().clear();
        }
    }

    /**
     * report(seconds) prints the last recorded run as {@code requestsPerSecond=}, {@code p50Micros=},
     * {@code p99Micros=} and {@code errors=} (responses other than 2xx, and closed connections).
     */
    void report(int seconds) {
        results(seconds).forEach((key, value) -> System.out.println(
                key + "=" + String.format(Locale.ROOT, "%.0f", value)));
    }

    /** results(seconds) is what report(seconds) prints, by key. */
    Map<String, Double> results(int seconds) {
        long[] lat = Arrays.copyOf(latencies, count);
        Arrays.sort(lat);
        Map<String, Double> out = new LinkedHashMap<>();
        out.put("requestsPerSecond", count / (double) seconds);
        out.put("p50Micros", lat.length == 0 ? -1.0 : lat[lat.length / 2] / 1000);
        out.put("p99Micros", lat.length == 0 ? -1.0 : lat[(int) (lat.length * 0.99)] / 1000);
        out.put("errors", (double) errors);
        return out;
    }

    /** close() closes every connection. */
    void close() throws IOException {
        for (Conn c : conns) {
            c.ch.close();
        }
        selector.close();
    }

    private boolean anyInFlight() {
        for (Conn c : conns) {
            if (c.inFlight) {
                return true;
            }
        }
        return false;
    }

    /** One keep-alive connection: parses responses by their headers and Content-Length. */
    private final class Conn {
        final SocketChannel ch;
        final int index;
        final ByteBuffer in = ByteBuffer.allocate(16 * 1024);
        long sentAt;
        long sent;
        boolean inFlight;

        Conn(SocketChannel ch, int index) {
            this.ch = ch;
            this.index = index;
        }

        void send() throws IOException {
            ByteBuffer out = ByteBuffer.wrap(requests.request(index, sent++));
            sentAt = System.nanoTime();
            inFlight = true;
            while (out.hasRemaining()) {
                ch.write(out); // a few hundred bytes into an empty socket buffer: completes at once
            }
        }

        /** read() consumes available bytes; returns the time a whole response had arrived, or -1. */
        long read() throws IOException {
            if (ch.read(in) < 0) {
                errors++;
                throw new IOException("server closed a keep-alive connection");
            }
            int headerEnd = indexOfHeaderEnd();
            if (headerEnd < 0) {
                return -1;
            }
            int length = contentLength(headerEnd);
            int total = headerEnd + 4 + length;
            if (in.position() < total) {
                return -1;
            }
            long now = System.nanoTime();
            if (in.get(9) != '2') {
                errors++;
            }
            // Keep any bytes past this response (there are none with one request in flight).
            in.flip();
            in.position(total);
            in.compact();
            inFlight = false;
            return now;
        }

        private int indexOfHeaderEnd() {
            byte[] a = in.array();
            for (int i = 0; i + 3 < in.position(); i++) {
                if (a[i] == '\r' && a[i + 1] == '\n' && a[i + 2] == '\r' && a[i + 3] == '\n') {
                    return i;
                }
            }
            return -1;
        }

        private int contentLength(int headerEnd) {
            String headers = new String(in.array(), 0, headerEnd, StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT);
            int at = headers.indexOf("content-length:");
            if (at < 0) {
                return 0;
            }
            int eol = headers.indexOf('\r', at);
            return Integer.parseInt(headers.substring(at + 15, eol < 0 ? headers.length() : eol).trim());
        }
    }
}
