package org.marl4j;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** SpinBudget adapts a worker's spin to the idle gaps it sees, on given clock readings. */
class SpinBudgetTest {
    private static final long MAX = 1_000_000;

    @Test
    void aGapLongerThanASpinShouldBridge_halvesTheBudget_downToTheMinimum() {
        SpinBudget budget = new SpinBudget(MAX);
        longGaps(budget, 1_000);
        assertEquals(SpinBudget.MIN_NANOS, budget.nanos());
    }

    @Test
    void shortGapsAfterLongOnes_doubleTheBudgetBackToTheConfiguredSpin() {
        SpinBudget budget = new SpinBudget(MAX);
        long now = longGaps(budget, 1_000);
        for (int i = 0; i < 20; i++) {
            budget.spinStarted(now);
            now += 1_000; // the work arrived a microsecond into the gap (the worker may have woken later)
            budget.workFound(now);
        }
        assertEquals(MAX, budget.nanos());
    }

    @Test
    void aSecondSpinInTheSameGap_keepsTheGapsStart() {
        SpinBudget budget = new SpinBudget(MAX);
        budget.spinStarted(1_000);
        budget.spinStarted(1_000 + 2 * SpinBudget.SHORT_GAP_NANOS); // spun, slept, spins again
        budget.workFound(1_000 + 3 * SpinBudget.SHORT_GAP_NANOS);
        assertEquals(MAX / 2, budget.nanos());
    }

    @Test
    void workFoundWithoutAnOpenGap_orAnAbandonedGap_changesNothing() {
        SpinBudget budget = new SpinBudget(MAX);
        budget.workFound(5_000_000);
        budget.spinStarted(1_000);
        budget.abandon();
        budget.workFound(1_000 + 10 * SpinBudget.SHORT_GAP_NANOS);
        assertEquals(MAX, budget.nanos());
    }

    /** longGaps(budget, now) closes 20 gaps of ten short gaps each, from now on; returns the time after them. */
    private static long longGaps(SpinBudget budget, long now) {
        for (int i = 0; i < 20; i++) {
            budget.spinStarted(now);
            now += 10 * SpinBudget.SHORT_GAP_NANOS;
            budget.workFound(now);
        }
        return now;
    }
}
