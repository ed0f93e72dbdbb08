package org.marl4j.benchmarks;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.LockSupport;

/**
 * OwnCarrier is the floor under any virtual-thread scheduler a library owns: one platform thread
 * that runs, in order, whatever the JDK hands it, with nothing else (no policy, no fiber states, no
 * worker lock). Its virtual threads come from the JDK's package-private
 * {@code ThreadBuilders.newVirtualThread(Executor, String, int, Runnable)}, the route marl4j's
 * {@code VIRTUAL_THREADS} engine takes (so it needs {@code --add-opens java.base/java.lang}). A
 * ping-pong on it costs what the JDK's mount and unmount cost on a scheduler that does nothing;
 * what marl4j's engine takes beyond that is marl4j's own.
 */
final class OwnCarrier implements Executor, ThreadFactory, AutoCloseable {
    private static final MethodHandle NEW_VIRTUAL_THREAD = newVirtualThreadHandle();
    private static final String NAME = new String("own-carrier-vt"); // a String no other thread's name can be

    /** Run tasks handed over on the carrier itself (an unpark by a virtual thread it carries): its alone. */
    private final ArrayDeque<Runnable> local = new ArrayDeque<>();
    /** Run tasks handed over by any other thread. */
    private final ConcurrentLinkedQueue<Runnable> inbox = new ConcurrentLinkedQueue<>();
    private final Thread carrier;
    private volatile boolean closed;

    OwnCarrier() {
        carrier = Thread.ofPlatform().name("own-carrier").daemon().start(this::loop);
    }

    /** execute(task) queues a run task of one of this carrier's virtual threads. Any thread. */
    @Override
    public void execute(Runnable task) {
        Thread current = Thread.currentThread();
        // One of this carrier's virtual threads can only be running on it (the JDK calls execute
        // from the unparking thread, pinned): its own name string, by identity, tells it.
        if (current == carrier || current.getName() == NAME) {
            local.addLast(task);
        } else {
            inbox.add(task);
            LockSupport.unpark(carrier);
        }
    }

    /** newThread(body) makes an unstarted virtual thread scheduled by this carrier. */
    @Override
    public Thread newThread(Runnable body) {
        try {
            return (Thread) NEW_VIRTUAL_THREAD.invokeExact((Executor) this, NAME, 0, body);
        } catch (Throwable t) {
            throw new IllegalStateException("could not make a virtual thread on an own carrier", t);
        }
    }

    @Override
    public void close() throws InterruptedException {
        closed = true;
        LockSupport.unpark(carrier);
        carrier.join();
    }

    private void loop() {
        while (!closed) {
            Runnable task = local.pollFirst();
            if (task == null) {
                task = inbox.poll();
            }
            if (task != null) {
                task.run();
            } else {
                LockSupport.park(this);
            }
        }
    }

    private static MethodHandle newVirtualThreadHandle() {
        try {
            Class<?> builders = Class.forName("java.lang.ThreadBuilders");
            return MethodHandles.privateLookupIn(builders, MethodHandles.lookup()).findStatic(builders, "newVirtualThread",
                    MethodType.methodType(Thread.class, Executor.class, String.class, int.class, Runnable.class));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("OwnCarrier needs --add-opens java.base/java.lang=ALL-UNNAMED", e);
        }
    }
}
