package org.marl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The jar's Java 8 entry point reads the running Java's version both ways it is spelled. */
class LauncherTest {
    @Test
    void feature_readsOldAndNewVersionStrings() {
        assertEquals(8, Launcher.feature("1.8"));
        assertEquals(17, Launcher.feature("17"));
        assertEquals(25, Launcher.feature("25"));
        assertEquals(Integer.MAX_VALUE, Launcher.feature("?"), "unreadable: let Main try");
        assertTrue(Launcher.feature(System.getProperty("java.specification.version")) >= Launcher.REQUIRED);
    }

    @Test
    void tooOld_namesTheVersionTheJavaAndTheWayOut() {
        String message = Launcher.tooOld("17", "/usr/lib/jvm/java-17");
        assertTrue(message.contains("Java 17 (/usr/lib/jvm/java-17)"), message);
        assertTrue(message.contains("-jar examples"), message);
    }
}
