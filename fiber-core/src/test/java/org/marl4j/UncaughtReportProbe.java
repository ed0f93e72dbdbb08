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
        String mode = args.length > 0 ? args[0] : "";
        Scheduler.Config workerConfig = new Scheduler.Config().setWorkerThreadCount(1).setThreadNamePrefix("probe-worker-");
        if (mode.equals("throwing-handler")) {
            workerConfig.setUncaughtExceptionHandler((thread, e) -> {
                throw new IllegalStateException("handler bug");
            });
        } else {
            if (mode.equals("default-handler")) {
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
        }
        try (Scheduler workers = new Scheduler(workerConfig)) {
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
