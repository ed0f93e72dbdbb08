package org.marl4j.examples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.marl4j.FiberEngine;

/** The demo, fractal and primes examples run, on small inputs and short loads, and print their results. */
class ExamplesTest {
    private static final Duration LIMIT = Duration.ofSeconds(120);

    @Test
    void httpServerDemo_servesEveryExecutorAndPrintsTheirNumbers() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        HttpServerDemo.Load load = new HttpServerDemo.Load(8, Duration.ofMillis(200), Duration.ofMillis(500),
                Duration.ofMillis(1));
        List<HttpServerDemo.Result> results = assertTimeoutPreemptively(LIMIT,
                () -> HttpServerDemo.run(new PrintStream(printed, true, StandardCharsets.UTF_8), load));
        String out = printed.toString(StandardCharsets.UTF_8);
        System.out.print(out);
        assertEquals(3, results.size());
        for (HttpServerDemo.Result result : results) {
            assertTrue(result.requests() > 0, () -> result + "\n" + out);
            assertTrue(result.p99Nanos() >= result.p50Nanos() && result.p50Nanos() > 0, result::toString);
            assertTrue(out.contains(result.executor()), out);
        }
        assertTrue(out.contains("What to look at"), out);
    }

    @Test
    void blockingBackendDemo_servesBothExecutorsAndNamesTheEngine() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        HttpServerDemo.Load load = new HttpServerDemo.Load(8, Duration.ofMillis(200), Duration.ofMillis(400),
                Duration.ofMillis(1));
        List<HttpServerDemo.Result> results = assertTimeoutPreemptively(LIMIT,
                () -> BlockingBackendDemo.run(new PrintStream(printed, true, StandardCharsets.UTF_8), load));
        String out = printed.toString(StandardCharsets.UTF_8);
        System.out.print(out);
        assertEquals(2, results.size());
        for (HttpServerDemo.Result result : results) {
            assertTrue(result.requests() > 0 && result.errors() == 0, () -> result + "\n" + out);
        }
        assertTrue(out.contains("fiber engine") && out.contains(FiberEngine.defaultEngine().name()), out);
    }

    @Test
    void blockingBackendSummary_pastTheCeiling_saysTheSleepsSuspendedOnlyFibers() {
        String text = BlockingBackendDemo.summary(List.of(new HttpServerDemo.Result("marl4j", 5_000, 0, 1, 1, 2),
                new HttpServerDemo.Result("virtual", 5_000, 0, 1, 1, 2)), 2, FiberEngine.VIRTUAL_THREADS, Duration.ofMillis(1));
        assertTrue(text.contains("about 2,000 requests/s") && text.contains("suspended only their fibers")
                && text.contains("1.00x"), text);
    }

    @Test
    void blockingBackendSummary_continuationsUnderTheCeiling_namesTheFlag() {
        String text = BlockingBackendDemo.summary(List.of(new HttpServerDemo.Result("marl4j", 1_900, 0, 1, 1, 2),
                new HttpServerDemo.Result("virtual", 5_000, 0, 1, 1, 2)), 2, FiberEngine.CONTINUATIONS, Duration.ofMillis(1));
        assertTrue(text.contains("holds its worker thread") && text.contains("--add-opens java.base/java.lang"), text);
    }

    @Test
    void demo_runsAStageUnderItsHeading() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Demo.stage(new PrintStream(printed, true, StandardCharsets.UTF_8), "a stage", o -> o.println("ran"));
        assertEquals("== a stage ==\n\nran\n\n", printed.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"));
    }

    @Test
    void fractal_writesAPngOfTheRequestedSize(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("fractal.png");
        String out = assertTimeoutPreemptively(LIMIT, () -> Output.of(() -> Fractal.run(System.out, 64, file)));
        BufferedImage image = ImageIO.read(file.toFile());
        assertEquals(64, image.getWidth());
        assertEquals(64, image.getHeight());
        assertTrue(out.contains("marl C++"), out);
    }

    @Test
    void fractal_rendersTheSameDetailedImageEveryTime() {
        int[] first = Fractal.render(48);
        int[] second = Fractal.render(48);
        assertArrayEquals(first, second);
        long colours = java.util.Arrays.stream(first).distinct().count();
        assertTrue(colours > 100, () -> "a Julia set has many shades, got " + colours);
    }

    @Test
    void primes_writesEveryPrimeInOrder() throws Exception {
        StringWriter lines = new StringWriter();
        long count = assertTimeoutPreemptively(LIMIT, () -> Primes.run(System.out, 100_000, lines));
        assertEquals(9_592, count); // pi(100,000)
        String[] all = lines.toString().split("\n");
        assertEquals("2 is prime", all[0]);
        assertEquals("99991 is prime", all[all.length - 1]);
        for (int i = 1; i < all.length; i++) {
            int previous = Integer.parseInt(all[i - 1].split(" ")[0]);
            int current = Integer.parseInt(all[i].split(" ")[0]);
            assertTrue(previous < current, all[i - 1] + " then " + all[i]);
        }
    }

    @Test
    void primes_rejectsAnEmptyRange() {
        assertThrows(IllegalArgumentException.class, () -> Primes.run(System.out, 0, new StringWriter()));
    }

    @Test
    void main_knowsEveryExample() {
        assertEquals(List.of("demo", "fractal", "primes", "hello-task", "tasks-in-tasks", "quick-start",
                "await-futures", "await-with-callback", "http-executor", "blocking-drop-in", "reactor", "kotlin"), List.copyOf(Main.EXAMPLES.keySet()));
    }
}
