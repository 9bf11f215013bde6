package io.leasehold.examples.demo;

import io.leasehold.fencing.FencingToken;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo's record of what happened, printed as it happens: time since start, device, run, fence,
 * event. Database instants are shown relative to the same start, by the database clock.
 */
final class Timeline {
  /** One line of the timeline. */
  record Event(long atMillis, String device, FencingToken token, String kind, String text) {}

  private final PrintStream out;
  private final long startNanos = System.nanoTime();
  private final List<Event> events = new ArrayList<>();
  private Instant databaseStart;

  Timeline(PrintStream out) {
    this.out = out;
  }

  /** Aligns database time with local time: {@code databaseNow} was read just now. */
  void alignDatabaseClock(Instant databaseNow) {
    databaseStart = databaseNow.minusMillis(elapsedMillis());
  }

  long elapsedMillis() {
    return Duration.ofNanos(System.nanoTime() - startNanos).toMillis();
  }

  /** A database instant as "+1.234s" on the timeline. */
  String at(Instant databaseTime) {
    return seconds(Duration.between(databaseStart, databaseTime).toMillis());
  }

  long millisAt(Instant databaseTime) {
    return Duration.between(databaseStart, databaseTime).toMillis();
  }

  static String seconds(long millis) {
    return String.format(Locale.ROOT, "+%.3fs", millis / 1000.0);
  }

  synchronized void log(String device, FencingToken token, String kind, String text) {
    Event e = new Event(elapsedMillis(), device, token, kind, text);
    events.add(e);
    out.println(format(e));
  }

  void say(String text) {
    out.println();
    out.println("== " + text);
  }

  synchronized List<Event> events() {
    return List.copyOf(events);
  }

  private static String format(Event e) {
    String run = e.token() == null ? "-" : e.token().runId().toString().substring(0, 8);
    String fence = e.token() == null ? "-" : Long.toString(e.token().fence());
    return String.format(
        Locale.ROOT,
        "%9s  %-8s run %-8s  fence %-4s %-9s %s",
        seconds(e.atMillis()),
        e.device(),
        run,
        fence,
        e.kind(),
        e.text());
  }
}
