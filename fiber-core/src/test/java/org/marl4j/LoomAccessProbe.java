package org.marl4j;

/** Run in a child JVM by LoomAccessTest: constructs a scheduler, which needs the export. */
final class LoomAccessProbe {
    private LoomAccessProbe() {}

    public static void main(String[] args) {
        try (Scheduler scheduler = new Scheduler(new Scheduler.Config().setWorkerThreadCount(1))) {
            System.out.println("constructed " + scheduler);
        }
    }
}
