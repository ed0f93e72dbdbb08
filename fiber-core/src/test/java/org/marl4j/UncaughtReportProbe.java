package org.marl4j;

/**
 * Run in a child JVM by UncaughtReportTest (its own System.err and default handler): a task throws
 * on a bound main thread and on a worker thread, and the next task on each thread still runs.
 * With the argument {@code default-handler}, a JVM-wide default handler is set first; with
 * {@code throwing-handler}, only the worker's task runs, under a configured handler that throws.
 */
final class UncaughtReportProbe {
    private UncaughtReportProbe() {}

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("throwing-handler")) {
            Scheduler.Config config = new Scheduler.Config().setWorkerThreadCount(1).setThreadNamePrefix("probe-worker-")
                    .setUncaughtExceptionHandler((thread, e) -> {
                        throw new IllegalStateException("handler bug");
                    });
            try (Scheduler workers = new Scheduler(config)) {
                WaitGroup after = new WaitGroup(1);
                workers.enqueue(new Task(() -> {
                    throw new IllegalStateException("boom on a worker");
                }));
                workers.enqueue(new Task(after::done));
                after.await();
            }
            System.out.println("main went on");
            return;
        }
        if (args.length > 0 && args[0].equals("default-handler")) {
            Thread.setDefaultUncaughtExceptionHandler((thread, e) ->
                    System.err.println("default handler: " + e.getMessage() + " on " + thread.getName()));
        }
        try (Scheduler bound = new Scheduler(new Scheduler.Config().setWorkerThreadCount(0))) {
            bound.bind();
            WaitGroup after = new WaitGroup(1);
            Marl.schedule(() -> {
                throw new IllegalStateException("boom on main");
            });
            Marl.schedule(after::done);
            after.await();
            bound.unbind();
        }
        try (Scheduler workers = new Scheduler(new Scheduler.Config().setWorkerThreadCount(1).setThreadNamePrefix("probe-worker-"))) {
            WaitGroup after = new WaitGroup(1);
            workers.enqueue(new Task(() -> {
                throw new IllegalStateException("boom on a worker");
            }));
            workers.enqueue(new Task(after::done));
            after.await();
        }
        System.out.println("main went on");
    }
}
