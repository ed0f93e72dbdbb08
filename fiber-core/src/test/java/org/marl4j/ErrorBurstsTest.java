package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class ErrorBurstsTest {
    private static final long MS = 1_000_000L;

    @Test
    void reportsTheFirstErrorOfABurstAndThenOneEveryPeriodWithTheCountInBetween() {
        ErrorBursts bursts = new ErrorBursts();
        long t = 5_000 * MS;
        assertEquals("", bursts.report(t));
        for (int i = 1; i <= 999; i++) {
            assertNull(bursts.report(t + i * 10 * MS), "error " + i + " of the burst");
        }
        // 10 s after the first report, still in the burst (errors 10 ms apart): reported with the count.
        String next = bursts.report(t + ErrorBursts.REPORT_EVERY_NANOS);
        assertEquals(" (999 more since the last report, not reported one by one)", next);
        assertNull(bursts.report(t + ErrorBursts.REPORT_EVERY_NANOS + MS));
    }

    @Test
    void anErrorAfterAQuietGapStartsANewBurstAndIsReported() {
        ErrorBursts bursts = new ErrorBursts();
        long t = 0;
        assertEquals("", bursts.report(t));
        assertNull(bursts.report(t + MS));
        long later = t + MS + ErrorBursts.BURST_GAP_NANOS;
        assertEquals(" (1 more since the last report, not reported one by one)", bursts.report(later));
        assertEquals("", bursts.report(later + 2 * ErrorBursts.BURST_GAP_NANOS));
    }
}
