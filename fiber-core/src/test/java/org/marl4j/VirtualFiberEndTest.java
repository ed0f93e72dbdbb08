package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;

/**
 * The virtual threads of a virtual-thread scheduler's fibers all end once it is closed: the JDK
 * lists a virtual thread (thread dumps, its root thread container) until it ends, so an idle fiber
 * left suspended would outlive its scheduler for good.
 */
class VirtualFiberEndTest {
    @TempDir
    Path dir;

    @ForEachWorkerCount
    void afterClose_noVirtualThreadOfItsFibersIsLeft(int workers) {
        Scheduler.Config config = TestSchedulers.config(workers).setFiberEngine(FiberEngine.VIRTUAL_THREADS);
        String prefix = workers == 0 ? Thread.currentThread().getName() + "/fiber" : config.getThreadNamePrefix();
        int tasks = 50;
        TestSchedulers.withBoundScheduler(config, scheduler -> {
            WaitGroup done = new WaitGroup(tasks);
            for (int i = 0; i < tasks; i++) {
                Marl.schedule(() -> {
                    Fiber.sleep(Duration.ofMillis(5)); // many fibers at once, idle afterwards
                    done.done();
                });
            }
            done.await();
            assertTrue(scheduler.stats().fibersCreated() > 1, scheduler.stats().toString());
            assertTrue(fibersListedByTheJdk(prefix, "during") > 0, "the JDK lists the fibers while they live");
        });
        assertEquals(0, fibersListedByTheJdk(prefix, "after"), "fibers outlived their scheduler");
    }

    /** fibersListedByTheJdk(prefix, tag) counts the virtual threads named prefix... in a JDK thread dump. */
    private long fibersListedByTheJdk(String prefix, String tag) {
        try {
            return countListed(prefix, tag);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private long countListed(String prefix, String tag) throws IOException {
        Path file = dir.resolve("threads-" + tag + "-" + System.nanoTime() + ".json");
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
        Matcher names = Pattern.compile("\"name\": \"([^\"]*)\"").matcher(Files.readString(file));
        long count = 0;
        while (names.find()) {
            String name = names.group(1).replace("\\/", "/"); // JSON may escape the slash
            if (name.startsWith(prefix) && name.endsWith("/fiber")) {
                count++;
            }
        }
        return count;
    }
}
