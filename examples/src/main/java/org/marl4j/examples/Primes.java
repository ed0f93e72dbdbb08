package org.marl4j.examples;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.marl4j.Marl;
import org.marl4j.Scheduler;
import org.marl4j.Ticket;

/**
 * Primes is marl's {@code examples/primes.cpp} in Java: the primes from 1 to 10,000,000, searched
 * in chunks of 10,000, one task per chunk on all cores, and written out in ascending order because
 * each task awaits its {@link Ticket} before writing. It prints its run time beside marl C++'s on
 * the same kind of 2-core machine.
 *
 * <p>{@code java -jar examples/target/marl4j-examples.jar primes [max] [file]}: the lines
 * ("2 is prime", ...) go to {@code file} if given, else nowhere (they are still formatted, in
 * order, and checked).
 */
public final class Primes {
    /** marl C++'s time for 1..10,000,000 on 2 cores (see MARL-BENCHMARKS.md). */
    static final double MARL_CPP_SECONDS = 1.92;
    /** How many numbers one task searches, as in marl. */
    static final int CHUNK = 10_000;

    private Primes() {}

    /**
     * main finds the primes and writes them out.
     *
     * @param args optional largest number to search and output file
     * @throws IOException if the output file cannot be written
     */
    public static void main(String[] args) throws IOException {
        int max = args.length > 0 ? Integer.parseInt(args[0]) : 10_000_000;
        if (args.length > 1) {
            try (Writer file = Files.newBufferedWriter(Path.of(args[1]))) {
                run(System.out, max, file);
            }
        } else {
            run(System.out, max, new BufferedWriter(new OutputStreamWriter(OutputStream.nullOutputStream(),
                    StandardCharsets.US_ASCII)));
        }
    }

    /** run writes "n is prime" for every prime in [1, max] to {@code lines}, in order; returns the count. */
    static long run(PrintStream out, int max, Writer lines) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, got " + max);
        }
        long cpu = CpuTime.nanos();
        long start = System.nanoTime();
        long[] found = new long[2]; // count, last prime written; touched only by the ticket holder
        found[1] = 0;
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            scheduler.bind();
            try {
                Ticket.Queue queue = new Ticket.Queue();
                for (int base = 1; base <= max; base += CHUNK) {
                    int from = base;
                    int to = (int) Math.min((long) base + CHUNK - 1, max);
                    Ticket ticket = queue.take();
                    Marl.schedule(() -> {
                        int[] primes = search(from, to);   // in parallel with the other tasks
                        ticket.await();                   // then wait for our turn to write
                        try {
                            write(primes, lines, found);
                        } finally {
                            ticket.done();                // call the next chunk's ticket
                        }
                    });
                }
                queue.take().await();                     // called once every chunk is written
                lines.flush();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } finally {
                scheduler.unbind();
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "primes: %,d primes in 1..%,d (largest %,d), %d tasks on %d worker threads: %.2f s (%s)%n",
                found[0], max, found[1], (max + CHUNK - 1) / CHUNK,
                Scheduler.Config.allCores().getWorkerThreadCount(), seconds, CpuTime.since(cpu));
        out.printf(Locale.ROOT, "marl C++ (1..10,000,000, 2 cores, MARL-BENCHMARKS.md): %.2f s%n", MARL_CPP_SECONDS);
        return found[0];
    }

    private static int[] search(int from, int to) {
        int[] primes = new int[64];
        int n = 0;
        for (int i = Math.max(from, 2); i <= to; i++) {
            if (isPrime(i)) {
                if (n == primes.length) {
                    primes = Arrays.copyOf(primes, n * 2);
                }
                primes[n++] = i;
            }
        }
        return Arrays.copyOf(primes, n);
    }

    /** isPrime tests by trial division, as marl's example does. */
    static boolean isPrime(int n) {
        int limit = (int) Math.sqrt(n);
        for (int d = 2; d <= limit; d++) {
            if (n % d == 0) {
                return false;
            }
        }
        return n >= 2;
    }

    /** write appends the chunk's lines; called by the ticket holder only, so chunks arrive in order. */
    private static void write(int[] primes, Writer lines, long[] found) {
        try {
            for (int p : primes) {
                if (p <= found[1]) {
                    throw new IllegalStateException("ticket order broken: " + p + " after " + found[1]);
                }
                lines.write(Integer.toString(p));
                lines.write(" is prime\n");
                found[1] = p;
                found[0]++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
