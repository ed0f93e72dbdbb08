package org.marl4j.examples;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * CpuTime reads the CPU time this JVM has used, so an example can print it beside its wall time:
 * on a machine busy with other work, wall time says little and CPU time says more.
 */
final class CpuTime {
    private CpuTime() {}

    /** nanos returns the process's CPU time so far, or -1 where the JVM does not report it. */
    static long nanos() {
        return ManagementFactory.getPlatformMXBean(OperatingSystemMXBean.class).getProcessCpuTime();
    }

    /** since formats the CPU time used since {@code start} (a value of {@link #nanos()}). */
    static String since(long start) {
        long now = nanos();
        return start < 0 || now < 0 ? "CPU time unknown" : String.format(Locale.ROOT, "%.2f s of CPU", (now - start) / 1e9);
    }
}
