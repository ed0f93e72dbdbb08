package org.marl4j;

/**
 * Run in a child JVM by SchedulerConfigAllCoresTest, with a processor count of its own
 * ({@code -XX:ActiveProcessorCount}): prints how many workers {@code Config.allCores()} asks for,
 * then runs a task on a scheduler built from it.
 */
final class AllCoresProbe {
    private AllCoresProbe() {}

    public static void main(String[] args) {
        Scheduler.Config config = Scheduler.Config.allCores().setThreadNamePrefix("probe-worker-");
        System.out.println("processors=" + Runtime.getRuntime().availableProcessors()
                + " workers=" + config.getWorkerThreadCount());
        try (Scheduler scheduler = new Scheduler(config)) {
            WaitGroup ran = new WaitGroup(1);
            scheduler.enqueue(new Task(ran::done));
            ran.await();
        }
        System.out.println("a task ran");
    }
}
