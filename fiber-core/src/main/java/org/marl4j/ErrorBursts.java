package org.marl4j;

/**
 * ErrorBursts decides which of a worker's internal errors are reported. A policy that throws every
 * time it is asked makes the worker's loop fail on every turn, thousands of times a second: the
 * first error of such a burst is reported, then one every {@link #REPORT_EVERY_NANOS} with the count
 * of those in between, not every one. Errors less than {@link #BURST_GAP_NANOS} apart are one burst.
 *
 * <p>Owned by one worker's thread: nothing here is shared.
 */
final class ErrorBursts {
    /** Internal errors less than this apart are one burst: a policy that always throws, say. */
    static final long BURST_GAP_NANOS = 1_000_000_000L;
    /** While a burst lasts, it is reported again at most this often. */
    static final long REPORT_EVERY_NANOS = 10_000_000_000L;

    private long lastError;
    private long lastReport;
    private boolean hadError;
    /** Errors of the current burst not reported yet. */
    private int unreported;

    /**
     * report(now) records an error at {@code now} (System.nanoTime()) and returns null if it is not
     * to be reported, or the text to append to its report: empty, or how many went unreported since
     * the last one.
     */
    String report(long now) {
        boolean sameBurst = hadError && now - lastError < BURST_GAP_NANOS;
        hadError = true;
        lastError = now;
        if (sameBurst && now - lastReport < REPORT_EVERY_NANOS) {
            unreported++;
            return null;
        }
        String suffix = unreported == 0 ? "" : " (" + unreported + " more since the last report, not reported one by one)";
        lastReport = now;
        unreported = 0;
        return suffix;
    }
}
