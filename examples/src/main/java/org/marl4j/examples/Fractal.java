package org.marl4j.examples;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import javax.imageio.ImageIO;
import org.marl4j.Marl;
import org.marl4j.Scheduler;
import org.marl4j.WaitGroup;

/**
 * Fractal is marl's {@code examples/fractal.cpp} in Java: a Julia set (c = -0.8 + 0.156i over the
 * window [-0.5, 0.5]², 3×3 samples per pixel, at most 1000 iterations) rendered with one task per
 * row on all cores, written to a PNG. It prints its render time beside marl C++'s on the same kind
 * of 2-core machine.
 *
 * <p>{@code java -jar examples/target/marl4j-examples.jar fractal [size] [file.png]}: size defaults
 * to 2048 (marl's), the file to {@code fractal.png}.
 */
public final class Fractal {
    /** marl C++'s wall time for the 2048×2048 image on 2 cores (see MARL-BENCHMARKS.md). */
    static final double MARL_CPP_SECONDS_2048 = 8.69;

    private static final float CX = -0.8f;
    private static final float CY = 0.156f;
    private static final int MAX_ITERATIONS = 1000;
    private static final int SAMPLES = 3;

    private Fractal() {}

    /**
     * main renders the fractal and writes the PNG.
     *
     * @param args optional size in pixels and output file
     * @throws IOException if the PNG cannot be written
     */
    public static void main(String[] args) throws IOException {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 2048;
        Path file = Path.of(args.length > 1 ? args[1] : "fractal.png");
        run(System.out, size, file);
    }

    /** run renders a size×size image, writes it to {@code file} and prints the timings. */
    static void run(PrintStream out, int size, Path file) throws IOException {
        if (size < 1) {
            throw new IllegalArgumentException("size must be at least 1 pixel, got " + size);
        }
        long cpu = CpuTime.nanos();
        long start = System.nanoTime();
        int[] rgb = render(size);
        double seconds = (System.nanoTime() - start) / 1e9;
        String cpuUsed = CpuTime.since(cpu);
        BufferedImage image = new BufferedImage(size, size, BufferedImage.TYPE_INT_RGB);
        image.setRGB(0, 0, size, size, rgb, 0, size);
        ImageIO.write(image, "png", file.toFile());
        out.printf(Locale.ROOT, "fractal: %d×%d Julia set, %d rows as %d tasks on %d worker threads: %.2f s (%s)%n",
                size, size, size, size, Scheduler.Config.allCores().getWorkerThreadCount(), seconds, cpuUsed);
        out.printf(Locale.ROOT, "marl C++ (2048×2048, 2 cores, MARL-BENCHMARKS.md): %.2f s%s%n", MARL_CPP_SECONDS_2048,
                size == 2048 ? "" : String.format(Locale.ROOT, "; scaled to %d×%d: %.2f s",
                        size, size, MARL_CPP_SECONDS_2048 * size * (double) size / (2048.0 * 2048.0)));
        out.println("wrote " + file.toAbsolutePath());
    }

    /** render computes the image, one task per row, and returns its pixels as 0xRRGGBB. */
    static int[] render(int size) {
        int[] pixels = new int[size * size];
        try (Scheduler scheduler = new Scheduler(Scheduler.Config.allCores())) {
            scheduler.bind();
            try {
                WaitGroup rows = new WaitGroup(size);
                for (int y = 0; y < size; y++) {
                    int row = y;
                    Marl.schedule(() -> {
                        renderRow(pixels, size, row);
                        rows.done();
                    });
                }
                rows.await();
            } finally {
                scheduler.unbind();
            }
        }
        return pixels;
    }

    private static void renderRow(int[] pixels, int size, int y) {
        for (int x = 0; x < size; x++) {
            float r = 0;
            float g = 0;
            float b = 0;
            for (int sy = 0; sy < SAMPLES; sy++) {
                float py = (y + sy / (float) SAMPLES) / size - 0.5f;
                for (int sx = 0; sx < SAMPLES; sx++) {
                    float px = (x + sx / (float) SAMPLES) / size - 0.5f;
                    float v = escape(px, py);
                    // A rainbow: three cosines a third of a turn apart.
                    r += 0.5f + 0.5f * (float) Math.cos(v);
                    g += 0.5f + 0.5f * (float) Math.cos(v + 2 * Math.PI / 3);
                    b += 0.5f + 0.5f * (float) Math.cos(v + 4 * Math.PI / 3);
                }
            }
            float n = SAMPLES * SAMPLES;
            pixels[y * size + x] = channel(r / n) << 16 | channel(g / n) << 8 | channel(b / n);
        }
    }

    /** escape returns sqrt of the iteration at which z leaves the radius-2 disc, or 0 if it never does. */
    private static float escape(float x, float y) {
        for (int i = 0; i < MAX_ITERATIONS; i++) {
            if (x * x + y * y > 4) {
                return (float) Math.sqrt(i);
            }
            float nextX = x * x - y * y + CX;
            y = 2 * x * y + CY;
            x = nextX;
        }
        return 0;
    }

    private static int channel(float value) {
        return Math.max(0, Math.min(255, (int) (value * 255)));
    }
}
