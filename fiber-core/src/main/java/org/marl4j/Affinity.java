package org.marl4j;

import java.util.Arrays;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.stream.IntStream;

/**
 * Affinity is an immutable set of logical CPUs a thread may run on (marl's
 * {@code Thread::Affinity}); a {@link Policy} maps each worker thread of a {@link Scheduler} to
 * one.
 *
 * <pre>{@code
 * // Pin worker i to the (i mod n)-th CPU this process may use, except CPU 0:
 * Affinity cores = Affinity.all().remove(Affinity.of(0));
 * Affinity.Policy policy = Affinity.Policy.oneOf(cores);
 * }</pre>
 *
 * <p>CPUs are identified by the operating system's logical CPU number (the numbers
 * {@code taskset -c} and {@code /proc/cpuinfo} use) and always kept in ascending order without
 * duplicates, so {@link #cpu(int) cpu(i)} is the i-th lowest. Unlike marl's mutating
 * {@code add}/{@code remove}, {@link #add} and {@link #remove} return a new value, so one
 * Affinity can be shared by a configuration and every worker thread.
 *
 * <h2>Platform support</h2>
 * Applying an affinity works on 64-bit Linux with Java 22 or later, through the JDK's
 * foreign-function API calling libc's {@code sched_setaffinity}/{@code sched_getaffinity}; no
 * native library ships with marl4j. The JVM must be started with
 * {@code --enable-native-access=ALL-UNNAMED} (or {@code =org.marl4j.core} when marl4j is on the
 * module path; an executable jar can say {@code Enable-Native-Access: ALL-UNNAMED} in its
 * manifest). Everywhere else {@link #isSupported()} is false and applying an affinity is a
 * documented no-op: the thread keeps running wherever the operating system puts it, a warning is
 * logged once (logger {@code org.marl4j.Affinity}), and nothing throws. marl4j checks the flag
 * itself and never calls a restricted method without it, so the JDK's "restricted method"
 * warning is never printed.
 */
public final class Affinity implements Iterable<Integer> {
    /**
     * The highest CPU number accepted: marl identifies a core by a 16-bit index, and Linux
     * kernels support at most 8,192 CPUs today.
     */
    public static final int MAX_CPU = 65_535;

    private static final Affinity EMPTY = new Affinity(new int[0]);

    /** Ascending, distinct, each in [0, MAX_CPU]; never modified after construction. */
    private final int[] cpus;

    private Affinity(int[] sortedDistinctCpus) {
        this.cpus = sortedDistinctCpus;
    }

    /**
     * all() returns every CPU this process may run on: on a supported platform, the affinity mask
     * the process was started with (so {@code taskset -c 2,3 java ...} gives CPUs 2 and 3), even
     * when called from a thread that was pinned since; otherwise CPUs {@code 0} to
     * {@code Runtime.availableProcessors() - 1}. Never empty.
     *
     * @return the CPUs this process may run on
     */
    public static Affinity all() {
        int[] cpus = NativeAffinity.processCpus();
        return cpus != null && cpus.length > 0 ? sorted(cpus) : firstCpus(Runtime.getRuntime().availableProcessors());
    }

    /**
     * ofCurrentThread() returns the CPUs the calling thread may run on right now, as the
     * operating system reports them; where that is not {@link #isSupported() supported}, the same
     * as {@link #all()}. On a virtual thread it describes the carrier thread it happens to run on.
     *
     * @return the CPUs the calling thread may run on
     */
    public static Affinity ofCurrentThread() {
        int[] cpus = NativeAffinity.currentThreadCpus();
        return cpus != null && cpus.length > 0 ? sorted(cpus) : all();
    }

    /**
     * of(cpus) returns an affinity with the given logical CPU numbers; order and repeats do not
     * matter. {@code of()} is the empty affinity.
     *
     * @param cpus logical CPU numbers, each zero or more
     * @return an affinity holding exactly those CPUs
     * @throws IllegalArgumentException if a CPU number is negative or above {@link #MAX_CPU}
     */
    public static Affinity of(int... cpus) {
        Objects.requireNonNull(cpus, "cpus");
        for (int cpu : cpus) {
            checkCpu(cpu);
        }
        return sorted(cpus.clone());
    }

    /**
     * isSupported() is true if applying an affinity to a thread really pins it here: 64-bit
     * Linux, Java 22 or later, native access enabled for marl4j (see the class comment), and the
     * kernel answered a first {@code sched_getaffinity} call. When false, applying a policy is a
     * no-op.
     *
     * @return whether pinning threads takes effect on this platform
     */
    public static boolean isSupported() {
        return NativeAffinity.isSupported();
    }

    /**
     * add(other) returns the union of this affinity and {@code other}.
     *
     * @param other the CPUs to add
     * @return a new affinity; this one is unchanged
     */
    public Affinity add(Affinity other) {
        Objects.requireNonNull(other, "other");
        int[] union = Arrays.copyOf(cpus, cpus.length + other.cpus.length);
        System.arraycopy(other.cpus, 0, union, cpus.length, other.cpus.length);
        return sorted(union);
    }

    /**
     * remove(other) returns the CPUs of this affinity that are not in {@code other}.
     *
     * @param other the CPUs to take away
     * @return a new affinity; this one is unchanged
     */
    public Affinity remove(Affinity other) {
        Objects.requireNonNull(other, "other");
        return sorted(IntStream.of(cpus).filter(cpu -> !other.contains(cpu)).toArray());
    }

    /**
     * count() returns the number of CPUs in this affinity.
     *
     * @return the number of CPUs
     */
    public int count() {
        return cpus.length;
    }

    /**
     * isEmpty() is true if this affinity holds no CPU.
     *
     * @return whether there is no CPU
     */
    public boolean isEmpty() {
        return cpus.length == 0;
    }

    /**
     * cpu(index) returns the index-th lowest CPU number of this affinity (marl's
     * {@code operator[]}).
     *
     * @param index the position, from 0 to {@code count() - 1}
     * @return the CPU number at that position
     * @throws IndexOutOfBoundsException if index is not in {@code [0, count())}
     */
    public int cpu(int index) {
        return cpus[Objects.checkIndex(index, cpus.length)];
    }

    /**
     * contains(cpu) is true if this affinity holds the given CPU number.
     *
     * @param cpu a logical CPU number
     * @return whether the CPU is part of this affinity
     */
    public boolean contains(int cpu) {
        return Arrays.binarySearch(cpus, cpu) >= 0;
    }

    /**
     * toArray() returns the CPU numbers in ascending order, in a new array.
     *
     * @return the CPU numbers, ascending
     */
    public int[] toArray() {
        return cpus.clone();
    }

    /**
     * stream() returns the CPU numbers in ascending order.
     *
     * @return the CPU numbers, ascending
     */
    public IntStream stream() {
        return IntStream.of(cpus);
    }

    /** iterator() returns the CPU numbers in ascending order; it does not support removal. */
    @Override
    public Iterator<Integer> iterator() {
        return new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < cpus.length;
            }

            @Override
            public Integer next() {
                if (next >= cpus.length) {
                    throw new NoSuchElementException("no CPU after index " + (cpus.length - 1));
                }
                return cpus[next++];
            }
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Affinity other && Arrays.equals(cpus, other.cpus);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(cpus);
    }

    /** toString() lists the CPU numbers, e.g. {@code Affinity[0, 2, 3]}. */
    @Override
    public String toString() {
        return "Affinity" + Arrays.toString(cpus);
    }

    /**
     * applyToCurrentThread() restricts the calling platform thread to this affinity's CPUs and
     * returns true, or returns false and changes nothing: on an empty affinity (as marl does), on
     * a virtual thread (that would pin its carrier), where affinity is not
     * {@link #isSupported() supported}, or if the kernel refuses (for example, none of the CPUs
     * exists or is allowed to this process). Failures are logged, never thrown.
     */
    boolean applyToCurrentThread() {
        if (cpus.length == 0 || Thread.currentThread().isVirtual()) {
            return false;
        }
        return NativeAffinity.setCurrentThread(cpus);
    }

    private static Affinity sorted(int[] cpus) {
        if (cpus.length == 0) {
            return EMPTY;
        }
        return new Affinity(IntStream.of(cpus).sorted().distinct().toArray());
    }

    private static Affinity firstCpus(int n) {
        return new Affinity(IntStream.range(0, Math.max(1, n)).toArray());
    }

    private static void checkCpu(int cpu) {
        if (cpu < 0 || cpu > MAX_CPU) {
            throw new IllegalArgumentException(
                    "CPU number must be in [0, " + MAX_CPU + "], was " + cpu
                            + ": use the operating system's logical CPU numbers (Affinity.all() lists them)");
        }
    }

    private static void checkWorkerId(int workerId) {
        if (workerId < 0) {
            throw new IllegalArgumentException("worker id must not be negative, was " + workerId);
        }
    }

    private static Affinity requireCpus(Affinity cpus, String factory) {
        Objects.requireNonNull(cpus, "affinity");
        if (cpus.isEmpty()) {
            throw new IllegalArgumentException(
                    "Policy." + factory + "() needs at least one CPU, was " + cpus
                            + ": start from Affinity.all() and remove what you want to keep free");
        }
        return cpus;
    }

    /**
     * Policy chooses the affinity of each worker thread of a {@link Scheduler} from its worker
     * id (marl's {@code Thread::Affinity::Policy}); {@link #anyOf} and {@link #oneOf} are marl's
     * two, and a lambda can be a custom one.
     *
     * <pre>{@code
     * Affinity.Policy everywhereButCpu0 = Affinity.Policy.anyOf(Affinity.all().remove(Affinity.of(0)));
     * Affinity.Policy onePerCpu = Affinity.Policy.oneOf(Affinity.all());
     * Affinity.Policy evenCpus = workerId -> Affinity.of(2 * workerId);
     * }</pre>
     */
    @FunctionalInterface
    public interface Policy {
        /**
         * get(workerId) returns the affinity for the worker thread with the given id (0 to
         * worker count - 1). The {@link Scheduler} constructor calls it once per worker, on the
         * constructing thread, as it starts that worker (as marl does); null or an empty affinity
         * leaves the thread where the OS puts it. If it throws, the constructor stops the workers
         * it had started and throws an {@link IllegalArgumentException} with this exception as
         * its cause (an {@link Error} as it is).
         *
         * @param workerId the worker's id, from 0 to the worker count - 1
         * @return the CPUs that worker may run on; null or empty for no pinning
         */
        Affinity get(int workerId);

        /**
         * anyOf(affinity) returns a policy that lets every worker run on any CPU of
         * {@code affinity}: the OS still balances the threads over those CPUs.
         *
         * @param affinity the CPUs every worker may use
         * @return the policy
         * @throws IllegalArgumentException if affinity is empty
         */
        static Policy anyOf(Affinity affinity) {
            return new AnyOf(requireCpus(affinity, "anyOf"));
        }

        /**
         * oneOf(affinity) returns a policy that pins worker {@code i} to the single CPU
         * {@code affinity.cpu(i % affinity.count())}: with as many workers as CPUs, one worker
         * per CPU.
         *
         * @param affinity the CPUs to hand out, one per worker
         * @return the policy
         * @throws IllegalArgumentException if affinity is empty
         */
        static Policy oneOf(Affinity affinity) {
            return new OneOf(requireCpus(affinity, "oneOf"));
        }
    }

    /** The policy {@link Policy#anyOf} returns. */
    private record AnyOf(Affinity cpus) implements Policy {
        @Override
        public Affinity get(int workerId) {
            checkWorkerId(workerId);
            return cpus;
        }

        @Override
        public String toString() {
            return "Policy.anyOf(" + cpus + ")";
        }
    }

    /** The policy {@link Policy#oneOf} returns. */
    private record OneOf(Affinity cpus) implements Policy {
        @Override
        public Affinity get(int workerId) {
            checkWorkerId(workerId);
            return new Affinity(new int[] {cpus.cpu(workerId % cpus.count())});
        }

        @Override
        public String toString() {
            return "Policy.oneOf(" + cpus + ")";
        }
    }
}
