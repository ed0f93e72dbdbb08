package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@code Config.allCores()} on machines with more logical CPUs than a scheduler may have workers
 * (two-socket servers): capped at {@link Scheduler#MAX_WORKER_THREADS}, as marl caps its own,
 * where it threw from the README's first line. In a child JVM told it has that many processors.
 */
class SchedulerConfigAllCoresTest {

    private static String runProbe(int processors) throws Exception {
        ChildJvm.Result result = ChildJvm.run(ChildJvm.addExports("-XX:ActiveProcessorCount=" + processors),
                AllCoresProbe.class);
        assertEquals(0, result.exitCode(), result.output());
        assertTrue(result.output().contains("a task ran"), result.output());
        return result.output();
    }

    @Test
    void onMoreProcessorsThanTheMaximum_allCoresTakesTheMaximum() throws Exception {
        String output = runProbe(300);
        assertTrue(output.contains("processors=300 workers=" + Scheduler.MAX_WORKER_THREADS), output);
    }

    @Test
    void otherwise_allCoresTakesOneWorkerPerProcessor() throws Exception {
        String output = runProbe(3);
        assertTrue(output.contains("processors=3 workers=3"), output);
    }
}
