package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One worker's queues on their own, without threads: a thief's steal takes a victim's oldest task
 * and the newest half of the rest, and hands them to the thief's policy through its steal buffer in
 * their queued order; the victim keeps the older half.
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

    /** concat(lists...) joins lists in order. */
    @SafeVarargs
    private static List<Task> concat(List<Task>... lists) {
        return Stream.of(lists).flatMap(List::stream).toList();
    }

    @Test
    void aSteal_takesTheOldestTaskAndTheNewestHalfOfTheRest_inQueuedOrder_andLeavesTheOlderHalfToTheVictim() {
        Work victim = new Work(new FifoPolicy(), new WorkerStats());
        Work thief = new Work(new FifoPolicy(), new WorkerStats());
        List<Task> tasks = enqueue(victim, 1000);

        assertSame(tasks.get(0), stealInto(victim, thief));

        // The oldest, then the newest half of the 999 left (499): more than the steal buffer's first size.
        assertEquals(concat(tasks.subList(0, 1), tasks.subList(501, 1000)), drain(thief));
        assertEquals(tasks.subList(1, 501), drain(victim));
    }

    @Test
    void theStealBuffer_isEmptiedByEachSteal_soTheNextStealStartsClean() {
        Work victim = new Work(new FifoPolicy(), new WorkerStats());
        Work thief = new Work(new FifoPolicy(), new WorkerStats());
        List<Task> tasks = enqueue(victim, 10);

        stealInto(victim, thief); // 0, then 6..9 (the newest half of the 9 left)
        stealInto(victim, thief); // 1, then 4..5 (the newest half of the 4 left)

        assertEquals(concat(tasks.subList(0, 1), tasks.subList(6, 10), tasks.subList(1, 2), tasks.subList(4, 6)),
                drain(thief));
        assertEquals(tasks.subList(2, 4), drain(victim));
        assertNull(victim.steal(thief), "nothing is left to steal");
    }

    @Test
    void aStealFromAPolicyHoldingSameThreadTasks_takesOnlyStealableOnes_andLeavesTheRestToTheVictim() {
        Work victim = new Work(new FifoPolicy(), new WorkerStats());
        Work thief = new Work(new FifoPolicy(), new WorkerStats());
        List<Task> stealable = enqueue(victim, 4);
        Task pinned = new Task(() -> {}, Task.Flag.SAME_THREAD);
        victim.lock.lock();
        try {
            victim.drainInbox();
            victim.addTask(pinned); // the newest task: the batch's scan from the newest end must pass it
        } finally {
            victim.lock.unlock();
        }

        assertSame(stealable.get(0), stealInto(victim, thief));

        assertEquals(concat(stealable.subList(0, 1), stealable.subList(2, 4)), drain(thief));
        assertEquals(List.of(stealable.get(1), pinned), drain(victim));
    }

    @Test
    void aStealFromAPriorityPolicy_keepsTheOrderItsStealGives_forTasksOfOnePriority() {
        Work victim = new Work(new PriorityPolicy(), new WorkerStats());
        Work thief = new Work(new PriorityPolicy(), new WorkerStats());
        List<Task> tasks = enqueue(victim, 10);

        assertSame(tasks.get(0), stealInto(victim, thief));

        // Only a FifoPolicy gives its batch newest first; a priority policy's is taken as it comes.
        assertEquals(tasks.subList(0, 5), drain(thief));
        assertEquals(tasks.subList(5, 10), drain(victim));
    }
}
