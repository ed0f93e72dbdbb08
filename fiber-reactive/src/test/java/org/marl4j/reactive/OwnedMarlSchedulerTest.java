package org.marl4j.reactive;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;
import org.marl4j.Scheduler;
import org.marl4j.Task;
import org.marl4j.TestSchedulers;
import reactor.test.StepVerifier;

/** The Scheduler contract for {@link MarlScheduler#create}: dispose closes the owned marl scheduler. */
class OwnedMarlSchedulerTest extends MarlSchedulerContract {
    private MarlScheduler created;
    private String prefix;

    @Override
    MarlScheduler create(int workers) {
        Scheduler.Config config = config(workers);
        prefix = config.getThreadNamePrefix();
        created = MarlScheduler.create(config);
        return created;
    }

    @Override
    void tearDown() {
        if (created != null) {
            created.dispose();
            StepVerifier.create(created.disposeGracefully()).expectComplete().verify(TestSchedulers.PATIENCE);
            TestSchedulers.assertNoThreadsLeft(prefix);
        }
    }

    @Test
    void dispose_closesTheOwnedSchedulerInTheBackground() {
        MarlScheduler s = create(2);
        Scheduler marl = s.scheduler();
        s.dispose();
        await().atMost(TestSchedulers.PATIENCE).untilAsserted(() -> TestSchedulers.assertNoThreadsLeft(prefix));
        assertThrows(RejectedExecutionException.class, () -> marl.enqueue(new Task(() -> {})));
    }

    @Test
    void create_withoutWorkerThreads_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> MarlScheduler.create(TestSchedulers.config(0)));
        assertThrows(NullPointerException.class, () -> MarlScheduler.create(null));
    }
}
