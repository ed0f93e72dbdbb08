package org.marl4j;

/** The thread of a multi-threaded worker: remembers its worker so lookups skip the ThreadLocal. */
final class WorkerThread extends Thread {
    final Worker worker;

    WorkerThread(Worker worker, String name, boolean daemon, Runnable body) {
        super(null, body, name);
        // Set either way: a Thread inherits its maker's status, and a scheduler made on a daemon
        // thread would otherwise get daemon workers (ThreadPoolExecutor's default factory resets it too).
        setDaemon(daemon);
        this.worker = worker;
    }
}
