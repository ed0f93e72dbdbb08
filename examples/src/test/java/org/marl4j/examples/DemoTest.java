package org.marl4j.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The demo's settings reach it from the README's Maven command, and its summary follows its numbers. */
class DemoTest {
    private static final String PROPERTY = "demo.test.setting";

    @AfterEach
    void clearProperty() {
        System.clearProperty(PROPERTY);
    }

    @Test
    void setting_absentOrBlank_isTheStandardValue() {
        assertEquals(64, Demo.setting(PROPERTY, 64, 1));
        System.setProperty(PROPERTY, ""); // what the pom forwards when the flag is not given
        assertEquals(64, Demo.setting(PROPERTY, 64, 1));
        System.setProperty(PROPERTY, " 8 ");
        assertEquals(8, Demo.setting(PROPERTY, 64, 1));
    }

    @Test
    void setting_notANumberOrTooSmall_namesTheFlag() {
        System.setProperty(PROPERTY, "lots");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Demo.setting(PROPERTY, 64, 1))
                .getMessage().contains("-D" + PROPERTY + "=lots"));
        System.setProperty(PROPERTY, "0");
        assertThrows(IllegalArgumentException.class, () -> Demo.setting(PROPERTY, 64, 1));
    }

    /** exec-maven-plugin starts a new JVM: a demo.* property not forwarded by the pom would be ignored. */
    @Test
    void demoProfile_forwardsEveryDemoPropertyTheDemoReads() throws IOException {
        String demo = Files.readString(Path.of("src/main/java/org/marl4j/examples/Demo.java"));
        String pom = Files.readString(Path.of("pom.xml"));
        Set<String> read = new TreeSet<>();
        Matcher m = Pattern.compile("\"(demo\\.\\w+)\"").matcher(demo);
        while (m.find()) {
            read.add(m.group(1));
        }
        assertFalse(read.isEmpty(), "Demo reads its settings from demo.* properties");
        for (String name : read) {
            assertTrue(pom.contains("<argument>-D" + name + "=${" + name + "}</argument>"),
                    "examples/pom.xml's demo profile must forward -D" + name);
            assertTrue(pom.contains("<" + name + "></" + name + ">"),
                    "examples/pom.xml must default " + name + " to empty (the demo's own default)");
        }
    }

    @Test
    void summary_marl4jSlowerThanVirtualThreads_saysSo() {
        String text = HttpServerDemo.summary(results(1_800, 2_600, 1_700), 2, load());
        assertTrue(text.contains("1.06x its requests/s"), text);
        assertTrue(text.contains("0.69x its requests/s"), text);
        assertTrue(text.contains("Virtual threads served more here"), text);
        assertTrue(text.contains("about even"), text);
        assertTrue(text.contains("2,000 requests/s"), text);
    }

    @Test
    void summary_marl4jAheadOfThePoolButUnderItsCeiling_doesNotClaimThePoint() {
        String text = HttpServerDemo.summary(results(1_650, 1_740, 1_240), 2, load());
        assertTrue(text.contains("both stayed under the pool's ceiling"), text);
        assertFalse(text.contains("point of the demo"), text);
        assertTrue(text.contains("About the same"), text);
    }

    @Test
    void summary_marl4jBehindThePool_saysItServedLess() {
        String text = HttpServerDemo.summary(results(954, 1_973, 1_330), 2, load());
        assertTrue(text.contains("0.72x its requests/s"), text);
        assertTrue(text.contains("marl4j served less than the pool"), text);
        assertTrue(text.contains("Virtual threads served more here"), text);
    }

    @Test
    void summary_marl4jAheadOfBoth_saysSo() {
        String text = HttpServerDemo.summary(results(3_000, 2_500, 1_500), 2, load());
        assertTrue(text.contains("went past that ceiling"), text);
        assertTrue(text.contains("this is the point of the demo"), text);
        assertTrue(text.contains("marl4j served more here"), text);
        assertFalse(text.contains("Virtual threads served more"), text);
    }

    private static HttpServerDemo.Load load() {
        return new HttpServerDemo.Load(8, Duration.ZERO, Duration.ofSeconds(1), Duration.ofMillis(1));
    }

    private static List<HttpServerDemo.Result> results(long marl, long virtual, long pool) {
        return List.of(new HttpServerDemo.Result("marl4j", marl, 0, 1, 1_000_000, 5_000_000),
                new HttpServerDemo.Result("virtual", virtual, 0, 1, 1_000_000, 5_000_000),
                new HttpServerDemo.Result("pool", pool, 0, 1, 2_000_000, 9_000_000));
    }
}
