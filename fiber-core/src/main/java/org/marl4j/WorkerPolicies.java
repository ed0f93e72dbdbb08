package org.marl4j;

import com.google.errorprone.annotations.concurrent.GuardedBy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * WorkerPolicies makes each worker's {@link SchedulingPolicy} from a scheduler's
 * {@link Scheduler.Config#setSchedulingPolicy factory} and keeps the instances live workers use,
 * to refuse a factory that hands one instance to two workers: a policy holds one worker's queues,
 * unsynchronized, so a shared one would corrupt every worker that uses it.
 *
 * <p>Lock discipline: {@link #inUse}'s own monitor guards it. The set compares by identity, so
 * no code of a policy (its equals, hashCode or toString) runs under that lock.
 */
final class WorkerPolicies {
    private final Scheduler scheduler;
    private final Supplier<? extends SchedulingPolicy> factory;
    @GuardedBy("inUse")
    private final Set<SchedulingPolicy> inUse = Collections.newSetFromMap(new IdentityHashMap<>());

    WorkerPolicies(Scheduler scheduler, Supplier<? extends SchedulingPolicy> factory) {
        this.scheduler = scheduler;
        this.factory = factory;
    }

    /**
     * newPolicy() makes the scheduling policy of a new worker, refusing null and an instance some
     * live worker already uses.
     */
    SchedulingPolicy newPolicy() {
        SchedulingPolicy policy = factory.get();
        if (policy == null) {
            throw new IllegalStateException("the scheduling policy factory of " + scheduler + " returned null: "
                    + "it must return a new SchedulingPolicy for each worker");
        }
        boolean added;
        synchronized (inUse) {
            added = inUse.add(policy);
        }
        if (!added) {
            throw new IllegalArgumentException("the scheduling policy factory of " + scheduler + " returned "
                    + policy + " for two workers: each worker needs its own instance, since a policy holds "
                    + "that worker's queues; pass a constructor such as MyPolicy::new, not () -> sharedInstance");
        }
        return policy;
    }

    /**
     * probeShared(workerThreadCount) asks the factory for the policies of bound threads to come
     * while no thread has started, so a factory that returns one shared instance is refused at
     * construction even with fewer than two worker threads.
     */
    void probeShared(int workerThreadCount) {
        List<SchedulingPolicy> probes = new ArrayList<>();
        for (int i = workerThreadCount; i < 2; i++) {
            probes.add(newPolicy());
        }
        synchronized (inUse) {
            probes.forEach(inUse::remove);
        }
    }

    /** release(worker) takes back the scheduling policy of a bound worker that has unbound. */
    void release(Worker worker) {
        synchronized (inUse) {
            inUse.remove(worker.work.policy());
        }
    }
}
