package org.marl4j;

/** The thread of a multi-threaded worker: remembers its worker so lookups skip the ThreadLocal. */
final class WorkerThread extends Thread {
    final Worker worker;

    WorkerThread(Worker worker, String name, Runnable body) {
        super(null, body, name);
        this.worker = worker;
    }
}
