package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One worker's queues on their own, without threads: a thief's steal takes the oldest half of a
 * victim's tasks, in order, and hands them to the thief's policy through its steal buffer.
 */
class WorkTest {

    private static List<Task> enqueue(Work work, int count) {
        List<Task> tasks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Task task = new Task(() -> {});
            assertEquals(Work.ADDED_OWNER_AWAKE, work.tryEnqueue(task)); // into the lock-free inbox
            tasks.add(task);
        }
        return tasks;
    }

    /** stealInto(victim, thief) is one steal as a thief's loop makes it: steal, then add under its own lock. */
    private static Task stealInto(Work victim, Work thief) {
        Task first = victim.steal(thief);
        thief.lock.lock();
        try {
            thief.addStolen(first);
        } finally {
            thief.lock.unlock();
        }
        return first;
    }

    /** drain(work) takes every task the policy holds, in the order it hands them out. */
    private static List<Task> drain(Work work) {
        List<Task> taken = new ArrayList<>();
        work.lock.lock();
        try {
            work.drainInbox();
            while (work.num() > 0) {
                taken.add(work.takeTask());
            }
        } finally {
            work.lock.unlock();
        }
        return taken;
    }

    @Test
    void aSteal_takesTheOldestHalf_inOrder_andLeavesTheRestToTheVictim() {
        Work victim = new Work(new FifoPolicy(), new WorkerStats());
        Work thief = new Work(new FifoPolicy(), new WorkerStats());
        List<Task> tasks = enqueue(victim, 1000);

        assertSame(tasks.get(0), stealInto(victim, thief));

        // The oldest, then half of the 999 left (499): more than the steal buffer's first size.
        assertEquals(tasks.subList(0, 500), drain(thief));
        assertEquals(tasks.subList(500, 1000), drain(victim));
    }

    @Test
    void theStealBuffer_isEmptiedByEachSteal_soTheNextStealStartsClean() {
        Work victim = new Work(new FifoPolicy(), new WorkerStats());
        Work thief = new Work(new FifoPolicy(), new WorkerStats());
        List<Task> tasks = enqueue(victim, 10);

        stealInto(victim, thief); // 0, then 1..4 (half of the 9 left)
        stealInto(victim, thief); // 5, then 6..7 (half of the 4 left)

        assertEquals(tasks.subList(0, 8), drain(thief));
        assertEquals(tasks.subList(8, 10), drain(victim));
        assertNull(victim.steal(thief), "nothing is left to steal");
    }
}
