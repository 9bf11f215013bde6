package io.leasehold.examples.agent;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** What reached the outside world, in order, and the demo's timeline. */
final class World {
  private final List<Effect> effects = new ArrayList<>();

  /** The story's clock: effects are numbered, log lines timed from the start. */
  private int seq;

  private final long start = System.nanoTime();
  private final PrintStream out;

  World(PrintStream out) {
    this.out = out;
  }

  synchronized int now() {
    return seq;
  }

  synchronized void effect(String device, long fence, String kind, String what) {
    effects.add(new Effect(++seq, device, fence, kind, what));
    log(device, String.format("%-8s reached the world: %s", kind, what), fence);
  }

  synchronized void log(String device, String event, long fence) {
    long ms = (System.nanoTime() - start) / 1_000_000;
    out.printf("%6d ms  %-8s %-66s %s%n", ms, device, event, fence > 0 ? "fence " + fence : "");
  }

  synchronized List<Effect> effects() {
    return List.copyOf(effects);
  }

  /** One effect: which device's run caused it, under which fence, and when in the story. */
  record Effect(int seq, String device, long fence, String kind, String what) {}
}
