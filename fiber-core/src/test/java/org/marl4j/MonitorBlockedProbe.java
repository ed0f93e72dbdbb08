package org.marl4j;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Run in a child JVM by MonitorTest: a fiber waits inside a synchronized block, and another fiber
 * of the same (only) worker then blocks entering it, for good, as no one else can resume the
 * owner. Prints the monitor's stranded-task warning once it comes, then exits: the worker thread
 * stays blocked, so only an exit ends this JVM.
 */
final class MonitorBlockedProbe {
    private MonitorBlockedProbe() {}

    public static void main(String[] args) throws InterruptedException {
        CountDownLatch warned = new CountDownLatch(1);
        Logger.getLogger(Scheduler.class.getName()).addHandler(new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getMessage().contains("has run one task")) {
                    System.out.println(record.getMessage());
                    warned.countDown();
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        });
        Scheduler.Config config = new Scheduler.Config().setWorkerThreadCount(1).setThreadNamePrefix("probe-worker-")
                .setFiberEngine(FiberEngine.CONTINUATIONS);
        config.strandedWarningAfter = Duration.ofMillis(50);
        Scheduler scheduler = new Scheduler(config);
        Object lock = new Object();
        Event never = new Event(Event.Mode.MANUAL);
        scheduler.enqueue(new Task(() -> {
            synchronized (lock) {
                never.await(); // against the README's one rule
            }
        }));
        scheduler.enqueue(new Task(() -> {
            synchronized (lock) { // blocks the worker thread
                System.out.println("entered");
            }
        }));
        scheduler.enqueue(new Task(() -> {})); // waits behind it: what the monitor warns about
        System.out.println(warned.await(30, TimeUnit.SECONDS) ? "warned" : "no warning");
        System.exit(0);
    }
}
