package org.marl4j;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.stream.IntStream;

/**
 * Calls libc's {@code sched_getaffinity} and {@code sched_setaffinity} through the JDK's
 * foreign-function API (final in Java 22) on 64-bit Linux. Compiled with {@code --release 22}
 * into {@code META-INF/versions/22/}; only {@link NativeAffinity} creates it, reflectively.
 *
 * <p>A CPU mask ({@code cpu_set_t}) is an array of C {@code unsigned long} words, CPU {@code n}
 * being bit {@code n % 64} of word {@code n / 64}. glibc's fixed {@code cpu_set_t} holds 1,024
 * CPUs; the kernel refuses ({@code EINVAL}) to report into a mask smaller than its own, so
 * {@link #get} starts at that size and doubles it until the kernel accepts.
 */
final class LinuxAffinityBackend implements NativeAffinity.Backend {
    /** glibc's {@code CPU_SETSIZE}: the mask size, in CPUs, tried first. */
    private static final int FIRST_MASK_CPUS = 1024;
    /** The largest mask tried, in CPUs: just above {@link Affinity#MAX_CPU}. */
    private static final int LAST_MASK_CPUS = Affinity.MAX_CPU + 1;
    private static final int EINVAL = 22;

    private final StructLayout callState = Linker.Option.captureStateLayout();
    private final long errnoOffset = callState.byteOffset(MemoryLayout.PathElement.groupElement("errno"));
    /** int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask), errno captured. */
    private final MethodHandle getAffinity;
    /** int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask), errno captured. */
    private final MethodHandle setAffinity;

    /**
     * LinuxAffinityBackend() looks both functions up in libc.
     *
     * @throws UnsupportedOperationException if native access is not enabled for marl4j (checked
     *     first, so the JDK never prints its restricted-method warning), C {@code long} is not 64
     *     bits, or libc lacks the functions
     */
    @SuppressWarnings("restricted") // downcallHandle runs only once native access is known to be enabled
    LinuxAffinityBackend() {
        if (!LinuxAffinityBackend.class.getModule().isNativeAccessEnabled()) {
            throw new UnsupportedOperationException(
                    "native access is not enabled for marl4j: start the JVM with "
                            + NativeAffinity.requiredFlag()
                            + " (an executable jar can say 'Enable-Native-Access: ALL-UNNAMED' in its manifest)");
        }
        Linker linker = Linker.nativeLinker();
        if (linker.canonicalLayouts().get("long").byteSize() != Long.BYTES
                || linker.canonicalLayouts().get("size_t").byteSize() != Long.BYTES) {
            throw new UnsupportedOperationException("marl4j pins threads only on 64-bit Linux");
        }
        FunctionDescriptor signature = FunctionDescriptor.of(
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
        Linker.Option errno = Linker.Option.captureCallState("errno");
        SymbolLookup libc = linker.defaultLookup();
        getAffinity = linker.downcallHandle(find(libc, "sched_getaffinity"), signature, errno);
        setAffinity = linker.downcallHandle(find(libc, "sched_setaffinity"), signature, errno);
    }

    @Override
    public int[] get(int pid) {
        for (int maskCpus = FIRST_MASK_CPUS; ; maskCpus *= 2) {
            try (Arena arena = Arena.ofConfined()) {
                long bytes = (long) maskCpus / Byte.SIZE;
                MemorySegment mask = arena.allocate(bytes, Long.BYTES);
                MemorySegment state = arena.allocate(callState);
                int result = (int) getAffinity.invokeExact(state, pid, bytes, mask);
                if (result == 0) {
                    return cpusOf(mask);
                }
                int errno = state.get(ValueLayout.JAVA_INT, errnoOffset);
                if (errno != EINVAL || maskCpus >= LAST_MASK_CPUS) {
                    throw new IllegalStateException("sched_getaffinity(" + pid + ") failed, errno " + errno);
                }
            } catch (Throwable t) {
                throw rethrow(t);
            }
        }
    }

    @Override
    public void set(int[] cpus) {
        int highest = cpus[cpus.length - 1];
        // At least glibc's size, rounded up to whole 64-bit words.
        long bytes = Math.max(FIRST_MASK_CPUS, (highest / Long.SIZE + 1) * Long.SIZE) / Byte.SIZE;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment mask = arena.allocate(bytes, Long.BYTES);
            for (int cpu : cpus) {
                long offset = (long) (cpu / Long.SIZE) * Long.BYTES;
                long word = mask.get(ValueLayout.JAVA_LONG, offset);
                mask.set(ValueLayout.JAVA_LONG, offset, word | (1L << (cpu % Long.SIZE)));
            }
            MemorySegment state = arena.allocate(callState);
            int result = (int) setAffinity.invokeExact(state, 0, bytes, mask);
            if (result != 0) {
                int errno = state.get(ValueLayout.JAVA_INT, errnoOffset);
                throw new IllegalStateException("sched_setaffinity(" + Affinity.of(cpus) + ") failed, errno " + errno
                        + (errno == EINVAL ? " (EINVAL: no CPU of the mask is online and allowed)" : ""));
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int[] cpusOf(MemorySegment mask) {
        long words = mask.byteSize() / Long.BYTES;
        return IntStream.range(0, Math.toIntExact(words))
                .flatMap(w -> {
                    long word = mask.getAtIndex(ValueLayout.JAVA_LONG, w);
                    return IntStream.range(0, Long.SIZE)
                            .filter(bit -> (word & (1L << bit)) != 0)
                            .map(bit -> w * Long.SIZE + bit);
                })
                .toArray();
    }

    private static MemorySegment find(SymbolLookup libc, String name) {
        return libc.find(name).orElseThrow(() -> new UnsupportedOperationException(
                "the C library has no " + name + "()"));
    }

    /** rethrow(t) passes runtime exceptions and errors on and wraps what invokeExact declares. */
    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
