package org.marl4j;

/**
 * ForwardingPolicy is marl's FIFO order ({@link FifoPolicy}) to extend in tests: a subclass
 * overrides the one call it wants to break or watch and passes the rest on.
 */
public class ForwardingPolicy implements SchedulingPolicy {
    private final FifoPolicy fifo = new FifoPolicy();

    @Override
    public void awakened(Fiber fiber) {
        fifo.awakened(fiber);
    }

    @Override
    public void enqueued(Task task) {
        fifo.enqueued(task);
    }

    @Override
    public Fiber pickNextFiber() {
        return fifo.pickNextFiber();
    }

    @Override
    public Task pickNextTask() {
        return fifo.pickNextTask();
    }

    @Override
    public Task steal() {
        return fifo.steal();
    }

    @Override
    public boolean remove(Fiber fiber) {
        return fifo.remove(fiber);
    }
}
