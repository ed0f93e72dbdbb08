package org.marl4j;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * TaskInbox holds the tasks other threads enqueued on one worker until someone holding the worker
 * lock moves them into the {@link SchedulingPolicy}, all at once ({@link Work#drainInbox()}): so an
 * enqueue takes no lock and never contends with the owner. A lock-free stack (many pushers, any
 * lock holder takes all) handed out in push order, so each producer's tasks stay FIFO. Closing
 * swaps an empty stack for a marker no push gets past: the owner closes it once it has drained
 * for good, and an enqueuer then moves on to another worker.
 */
final class TaskInbox {
    /** One pushed task; the chain handed out by {@link #takeAll()} is linked through next. */
    static final class Node {
        final Task task;
        Node next;
        /**
         * How many nodes the stack held with this one on top: set before the push publishes it and
         * never changed, so the head alone tells the inbox's size without walking the chain (which a
         * taker relinks). The int fits in the node's alignment padding.
         */
        int depth;

        Node(Task task) {
            this.task = task;
        }
    }

    private static final Node CLOSED = new Node(null);
    private static final VarHandle HEAD;

    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(TaskInbox.class, "head", Node.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("unused") // accessed through HEAD
    private volatile Node head;

    /** push(task) adds a task; returns false, adding nothing, if the inbox is closed. Any thread. */
    boolean push(Task task) {
        Node node = new Node(task);
        Node first;
        do {
            first = (Node) HEAD.getVolatile(this);
            if (first == CLOSED) {
                return false;
            }
            node.next = first;
            node.depth = first == null ? 1 : first.depth + 1;
        } while (!HEAD.compareAndSet(this, first, node));
        return true;
    }

    /** isEmpty() is true when no task waits in it (closed included). A volatile read: any thread. */
    boolean isEmpty() {
        Node first = (Node) HEAD.getVolatile(this);
        return first == null || first == CLOSED;
    }

    /** size() counts the tasks waiting here: exact at the moment of its volatile read. Any thread. */
    int size() {
        Node first = (Node) HEAD.getVolatile(this);
        return first == null || first == CLOSED ? 0 : first.depth;
    }

    /**
     * sizeUpTo2() is 0, 1, or 2 meaning two or more: for a thief deciding whether a worker's only
     * task is one it just made. Racy (a taker may be relinking the nodes): a hint only.
     */
    int sizeUpTo2() {
        Node first = (Node) HEAD.getVolatile(this);
        if (first == null || first == CLOSED) {
            return 0;
        }
        return first.next == null ? 1 : 2;
    }

    /** takeAll() empties the inbox and returns its tasks in push order, or null. With the worker lock held. */
    Node takeAll() {
        Node first;
        do {
            first = (Node) HEAD.getVolatile(this);
            if (first == null || first == CLOSED) {
                return null;
            }
        } while (!HEAD.compareAndSet(this, first, null));
        Node reversed = null;
        while (first != null) {
            Node next = first.next;
            first.next = reversed;
            reversed = first;
            first = next;
        }
        return reversed;
    }

    /** close() closes the inbox if it is empty; returns whether it is closed. With the worker lock held. */
    boolean close() {
        return HEAD.compareAndSet(this, (Node) null, CLOSED) || HEAD.getVolatile(this) == CLOSED;
    }
}
