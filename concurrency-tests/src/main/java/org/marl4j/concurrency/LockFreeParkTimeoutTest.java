package org.marl4j.concurrency;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.marl4j.FiberCallback;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.ZZ_Result;

/**
 * The lock-free park against a timeout. No timed marl4j wait parks without the worker lock (a
 * deadline needs the worker's timer heap, so timed waits suspend under the lock); what ends an
 * untimed lock-free park on a deadline is a timer elsewhere. Here: a worker's fiber waits in
 * {@code FiberCallback.awaitCompletion(future)}, which parks on the fiber's wake epoch (it reads the
 * epoch, then {@code isDone()}, and the trampoline suspends it only if the epoch has not moved),
 * while the other actor gives the future a timeout of zero ({@code orTimeout}): the JDK's delayer
 * thread fails it with a {@code TimeoutException} as soon as it can, and the completion wakes the
 * fiber. r1: the wait ended in time; r2: it ended by a cancellation.
 */
@JCStressTest
@Description("FiberCallback.awaitCompletion parked without the worker lock on a worker's fiber vs. the future's timeout expiring")
@Outcome(id = "true, false", expect = ACCEPTABLE,
        desc = "The waiter returned: the future had timed out already, or its timing out resumed the fiber.")
@Outcome(id = "false, false", expect = FORBIDDEN,
        desc = "Lost wake-up: the timeout expired and completed the future, whose callback woke the parked fiber, "
                + "yet the fiber was never resumed (the trampoline suspended it without seeing the epoch move); it "
                + "ended only when the test woke it after its timeout.")
@Outcome(expect = FORBIDDEN, desc = "The wait threw FiberCancelledException, though nothing cancelled it.")
@State
public class LockFreeParkTimeoutTest {
    private final CompletableFuture<Void> future = new CompletableFuture<>();
    private final ParkedFiber parked = new ParkedFiber();

    /** Parks a fiber of the one-worker scheduler until the future is done, and reports how it ended. */
    @Actor
    public void waiter(ZZ_Result r) {
        parked.start(Fibers.oneWorker(), () -> FiberCallback.awaitCompletion(future));
        r.r1 = parked.endedPromptly();
        r.r2 = parked.endedByCancellation();
    }

    /** Arms a timeout that expires at once, on the JDK's delayer thread. */
    @Actor
    public void timer() {
        future.orTimeout(0, TimeUnit.NANOSECONDS);
    }
}
