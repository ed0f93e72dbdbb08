package org.marl4j;

import java.time.Duration;

/** Run in a child JVM by JfrEventsTest: tasks and fiber suspends with no JFR recording ever started. */
final class JfrOffProbe {
    private JfrOffProbe() {}

    public static void main(String[] args) {
        for (int workers : new int[] {0, 1, 2}) {
            TestSchedulers.withBoundScheduler(workers, scheduler -> {
                WaitGroup done = new WaitGroup(4);
                for (int i = 0; i < 4; i++) {
                    Marl.schedule(() -> {
                        Fiber.sleep(Duration.ofMillis(1));
                        done.done();
                    });
                }
                done.await();
            });
        }
        System.out.println("probe done");
    }
}
