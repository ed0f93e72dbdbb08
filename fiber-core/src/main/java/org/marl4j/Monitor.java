package org.marl4j;

import java.util.concurrent.locks.LockSupport;

/**
 * The Monitor is one daemon thread per scheduler with worker threads that watches for a worker
 * thread held by one task: Go's {@code sysmon}, which retakes a P stuck in a syscall, and the
 * detection half of Reactor's BlockHound. marl has no such thread, and a task that blocks its
 * worker thread (JDBC, {@code synchronized}, {@code Thread.sleep}, a plain latch) there strands
 * the tasks queued behind it while other workers sleep: marl steals only while a worker spins.
 *
 * <h2>Implementation overview</h2>
 *
 * <p><b>Progress.</b> Each worker bumps a counter ({@link Work#progressed()}, an opaque store)
 * when it starts a task and when it switches fibers, and publishes whether it is active, spinning
 * or asleep ({@link Work#activity()}). Every {@link #CHECK_NANOS} the monitor samples both: a
 * worker active at two samples in a row whose counter has not moved between them has been in one
 * task (or a pinned wait) for at least that long. A worker that was asleep or spinning at the last
 * sample is never judged on the next one: it may have woken a moment ago. No worker pays more than a store per task for this.
 *
 * <p><b>Stranded tasks.</b> If such a stalled worker has work queued, the monitor wakes as many
 * idle (sleeping) workers as it has queued items and sends each to steal from it
 * ({@link Work#sendToSteal}); a thief takes one task and, once out of work again, sleeps or spins
 * and is sent again if the worker is still stalled. So a queued task waits at most about two
 * check periods behind a blocked worker while another worker is idle, whatever the spin duration.
 * The thief answers in {@code Worker.sleepForWork}, through which every idle sleep goes, including
 * a new worker's first one (a request left unanswered there once made the monitor pass that worker
 * over for good). The enqueue-time wake ({@code IdleWorkers.wakeIdleWorker}) usually takes such a
 * task first; the monitor is the net for an enqueue that raced with a worker going to sleep.
 * Delayed tasks that have come due wait in the stalled worker's deadline heap, where no thief
 * looks: the monitor files them as the worker would ({@link Deadlines#expireDeadlinesFor}), under its
 * lock, which a worker running a task does not hold, and they are stolen like the rest.
 * Ready fibers and SAME_THREAD tasks cannot move: they stay with their worker's thread.
 *
 * <p><b>Blocking tasks.</b> A worker stalled for longer than the configured threshold is reported
 * once per stall: {@link WorkerStats#tasksBlocking} counts it and a JFR
 * {@link TaskBlockingEvent} records the worker's stack, taken from here. A stall that strands work
 * (something is still queued on the worker after {@link #strandedWarningNanos}: no other worker
 * was free to take it, or it is a ready fiber, woken from any thread, or a SAME_THREAD task, which
 * cannot move) is also
 * logged once at WARNING with the worker's stack, since it may never end by itself: a task that
 * waits on a plain latch for work queued behind it, on a single worker, is a deadlock.
 *
 * <p><b>Parking.</b> While any worker is awake the monitor samples every {@link #CHECK_NANOS};
 * when every worker sleeps it samples every {@link #IDLE_PARK_NANOS} only, as Go's sysmon backs
 * off to 10 ms when idle. No worker wakes it: unparking the monitor as a worker left its sleep put
 * a futex wake, and usually a preemption by the monitor thread, between that wake and the worker's
 * first task (25-40 µs of the 80 µs a task took to start after idleness, on 2 cores), and cost
 * the same again for every task of a light load. So a stall that begins from complete idleness
 * is seen up to one idle period later than one that begins while a worker is already awake.
 */
final class Monitor {
    /** How often the monitor samples the workers while any is awake: a queued task waits at most about twice this. */
    static final long CHECK_NANOS = 2_000_000L;

    /** How often the monitor samples while every worker sleeps (Go's sysmon's longest sleep). */
    private static final long IDLE_PARK_NANOS = 10_000_000L;


    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());

    /** lastProgress of a worker that was not active at the last sample: no progress count is negative. */
    private static final long NOT_ACTIVE = -1;

    private final Scheduler scheduler;
    private final Worker[] workers;
    private final long blockingThresholdNanos;
    /** How long a stall must strand queued work before it is logged. */
    private final long strandedWarningNanos;
    private final long[] lastProgress;
    private final long[] progressSince;
    private final long[] reportedProgress;
    /** The progress count of each worker's stall last logged as stranding work; -1 if none. */
    private final long[] warnedProgress;
    /** The progress count of each worker's stall in which its policy threw for the monitor; -1 if none. */
    private final long[] policyFailedProgress;
    /** Set once an unexpected error in a check has been logged (it is a bug in marl4j: logged once). */
    private boolean checkFailureLogged;
    private final Thread thread;
    private volatile boolean stopping;

    Monitor(Scheduler scheduler, Worker[] workers, long blockingThresholdNanos, long strandedWarningNanos, String threadName) {
        this.scheduler = scheduler;
        this.workers = workers;
        this.blockingThresholdNanos = blockingThresholdNanos;
        this.strandedWarningNanos = strandedWarningNanos;
        this.lastProgress = new long[workers.length];
        // The first sample of each worker is a baseline: a worker whose thread has just started is
        // active with no progress, and compared with a zero here it looked stalled since time 0 (a
        // WARNING "has run one task for <uptime> ms", and a tasksBlocking count, at start-up).
        java.util.Arrays.fill(lastProgress, NOT_ACTIVE);
        this.progressSince = new long[workers.length];
        this.reportedProgress = new long[workers.length];
        java.util.Arrays.fill(reportedProgress, -1);
        this.warnedProgress = new long[workers.length];
        java.util.Arrays.fill(warnedProgress, -1);
        this.policyFailedProgress = new long[workers.length];
        java.util.Arrays.fill(policyFailedProgress, -1);
        this.thread = new Thread(this::run, threadName);
        this.thread.setDaemon(true); // a scheduler nobody closed must not keep the JVM alive through this
    }

    void start() {
        thread.start();
    }

    /** stop() ends the monitor thread and waits for it. Called by close() once the workers have ended. */
    void stop() {
        stopping = true;
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (!stopping) {
            boolean anyAwake = true;
            try {
                anyAwake = check(System.nanoTime());
            } catch (RuntimeException | Error bug) {
                // The monitor must outlive a failed check: without it, stranded work stays stranded.
                if (!checkFailureLogged) {
                    checkFailureLogged = true;
                    LOG.log(System.Logger.Level.ERROR, "marl4j internal error in the monitor of " + scheduler
                            + "; it keeps watching", bug);
                }
            }
            LockSupport.parkNanos(this, anyAwake ? CHECK_NANOS : IDLE_PARK_NANOS);
        }
    }

    /** check(now) samples every worker once; returns whether any worker is awake. Monitor thread only (and tests). */
    boolean check(long now) {
        boolean anyAwake = false;
        for (int i = 0; i < workers.length; i++) {
            Work work = workers[i].work;
            long progress = work.progress();
            int activity = work.activity();
            if (activity != Work.ACTIVE) {
                // Not a sample to compare with: a worker woken after this one has had no time to
                // start a task, and would look stalled (it did, on every wake after the monitor's
                // idle park, and was sent a thief it did not need).
                anyAwake |= activity != Work.IDLE;
                lastProgress[i] = NOT_ACTIVE;
                progressSince[i] = now;
                continue;
            }
            anyAwake = true;
            if (progress != lastProgress[i]) {
                lastProgress[i] = progress;
                progressSince[i] = now;
                continue;
            }
            // Active with no progress since the last sample: stalled in one task for a while. Its due
            // delayed tasks would wait for it in its deadline heap, where no thief looks: file them.
            if (policyFailedProgress[i] != progress) {
                try {
                    Deadlines.expireDeadlinesFor(work, now);
                } catch (RuntimeException | Error policyFailure) {
                    // A custom policy threw taking a due entry (left for the owner): say so once a stall.
                    policyFailedProgress[i] = progress;
                    scheduler.reportUncaught(policyFailure);
                }
            }
            int stealable = work.tasksQueued(); // ready fibers cannot move: no thief for them
            if (stealable > 0) {
                sendThieves(workers[i], stealable);
            }
            int queued = work.queued();
            // Fibers woken from other threads wait in its inbox, for it alone: warn of them too.
            if ((queued > 0 || work.hasWokenFibers())
                    && now - progressSince[i] >= strandedWarningNanos && warnedProgress[i] != progress) {
                warnedProgress[i] = progress;
                warnStranded(workers[i], now - progressSince[i]);
            }
            if (now - progressSince[i] >= blockingThresholdNanos && reportedProgress[i] != progress) {
                reportedProgress[i] = progress;
                reportBlocking(workers[i], now - progressSince[i]);
            }
        }
        return anyAwake;
    }

    /** sendThieves(victim, tasks) wakes up to {@code tasks} idle workers to steal from victim. */
    private void sendThieves(Worker victim, int tasks) {
        for (int j = 0; j < workers.length && tasks > 0; j++) {
            Worker thief = workers[j];
            if (thief != victim && thief.work.activity() == Work.IDLE && thief.work.sendToSteal(victim)) {
                tasks--;
            }
        }
    }

    private void warnStranded(Worker worker, long heldNanos) {
        LOG.log(System.Logger.Level.WARNING, worker + " (thread " + worker.thread().getName() + ") has run one task for "
                + heldNanos / 1_000_000 + " ms, holding its thread, while work queued on it waits: no other worker "
                + "took it (all are busy, or it is a ready fiber or a SAME_THREAD task, which only this thread may "
                + "run). If that task waits for the queued work, it never ends. Its stack:\n" + worker.threadStack(16)
                + LockCheck.blockedHint(worker.thread(), scheduler.checkLocks)
                + "Wait with marl4j primitives (they free the thread), wrap blocking calls in Marl.blockingCall, "
                + "or give the scheduler more worker threads.");
    }

    private void reportBlocking(Worker worker, long heldNanos) {
        // The event first, the count after: whoever sees the count (a test, a metrics scrape that then
        // ends the stall) knows the stack was taken while the task still held the thread.
        recordBlocking(worker, heldNanos);
        worker.stats.tasksBlocking++; // written by this thread only
    }

    private static void recordBlocking(Worker worker, long heldNanos) {
        if (!FlightRecording.started()) {
            return;
        }
        TaskBlockingEvent event = new TaskBlockingEvent();
        if (!event.shouldCommit()) {
            return;
        }
        event.setWorker(worker);
        event.workerThread = worker.thread().getName();
        event.heldFor = heldNanos;
        event.workerStack = worker.threadStack(Integer.MAX_VALUE);
        event.commit();
    }
}
