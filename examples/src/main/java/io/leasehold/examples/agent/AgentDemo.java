package io.leasehold.examples.agent;

import com.google.adk.agents.LlmAgent;
import com.google.adk.agents.RunConfig;
import com.google.adk.events.Event;
import com.google.adk.runner.InMemoryRunner;
import com.google.adk.runner.Runner;
import com.google.adk.sessions.Session;
import com.google.genai.types.Content;
import com.google.genai.types.Part;
import com.zaxxer.hikari.HikariDataSource;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.UserMessage;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.adk.AdkToolFence;
import io.leasehold.examples.demo.DemoDatabase;
import io.leasehold.examples.demo.DemoOptions;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.langchain4j.LangChain4jToolFence;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.Lease;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStore;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The agent demo: one conversation open on a desktop and in a browser, an agent with side-effecting
 * tools on each, and a scripted model so it runs anywhere (no network, no API key). The story runs
 * on LangChain4j, then on Google ADK ({@link Framework}), with the same verdict.
 *
 * <ol>
 *   <li>the desktop run starts a multi-step task: it sends a message and writes a file;
 *   <li>while its model is "thinking", the user continues in the browser, which takes over the
 *       session and runs its own steps;
 *   <li>the desktop run's next tool call (a table booking) is refused and the run stops;
 *   <li>the output shows the timeline, the fences, and which calls reached the world.
 * </ol>
 *
 * <p>Exits with 1 if a call of the superseded run reached the world.
 *
 * <pre>
 * mvn -q -pl examples -am -DskipTests -Pdemo verify -Ddemo.main=io.leasehold.examples.agent.AgentDemo
 * </pre>
 */
public final class AgentDemo {
  private static final Logger LIQUIBASE = Logger.getLogger("liquibase");
  private static final LeaseKey SESSION = LeaseKey.of("acct-7", "trip-to-lisbon");
  private static final String OPERATOR = "session-service";

  private AgentDemo() {}

  /**
   * What the demo found.
   *
   * @param passed true if no call of the superseded run reached the world
   * @param problems what went wrong, if anything
   * @param desktopFence the desktop run's fence
   * @param browserFence the browser run's fence
   * @param reachedWorld every effect, in order, as "device fence kind: what"
   * @param desktopStopped how the desktop run ended, if it was stopped
   */
  public record Verdict(
      boolean passed,
      List<String> problems,
      long desktopFence,
      long browserFence,
      List<String> reachedWorld,
      Optional<String> desktopStopped) {}

  /** The agent framework the devices run the agent on; the story and the verdict are the same. */
  public enum Framework {
    /** A LangChain4j AI service, its tools decorated by {@code LangChain4jToolFence}. */
    LANGCHAIN4J("LangChain4j"),
    /** A Google ADK agent on an ADK runner, its tools fenced by {@code AdkToolFence}'s plugin. */
    ADK("Google ADK");

    private final String title;

    Framework(String title) {
      this.title = title;
    }
  }

  /** The AI service both devices run. */
  interface TripAgent {
    String chat(@UserMessage String request, InvocationParameters run);
  }

  /**
   * Runs the demo.
   *
   * @param args the demo options ({@code --help} lists them)
   */
  public static void main(String[] args) {
    Optional<DemoOptions> parsed =
        DemoOptions.fromCommandLine(
            args,
            "Agent demo: a LangChain4j agent, then a Google ADK agent, on two devices, the"
                + " superseded run's tools refused.");
    if (parsed.isEmpty()) {
      return;
    }
    boolean passed = true;
    for (Framework framework : Framework.values()) {
      passed &= run(parsed.get(), System.out, true, framework).passed();
      System.out.println();
    }
    System.exit(passed ? 0 : 1);
  }

  /**
   * Runs the demo with fenced tools on LangChain4j.
   *
   * @param options the options
   * @param out where the timeline goes
   * @return the verdict
   */
  public static Verdict run(DemoOptions options, PrintStream out) {
    return run(options, out, true, Framework.LANGCHAIN4J);
  }

  /**
   * Runs the demo on one framework; with {@code fenced} false the framework gets the tools
   * undecorated (no fence plugin for ADK), as an application without Leasehold would, so the
   * verdict shows what the fence prevents.
   *
   * @param options the options
   * @param out where the timeline goes
   * @param fenced whether the tools are fenced
   * @param framework the agent framework
   * @return the verdict
   */
  public static Verdict run(
      DemoOptions options, PrintStream out, boolean fenced, Framework framework) {
    LIQUIBASE.setLevel(Level.WARNING);
    out.println(
        "Leasehold agent demo ("
            + framework.title
            + "): one conversation, two devices, a scripted model (no network)"
            + (fenced ? "" : " -- tools NOT fenced"));
    Path dir;
    try {
      dir = Files.createTempDirectory("leasehold-agent-demo");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try (DemoDatabase pg = DemoDatabase.start(options);
        HikariDataSource desktopPool = pg.pool("desktop", 3);
        HikariDataSource browserPool = pg.pool("browser", 3)) {
      out.println("database: " + pg.describe() + "; files under " + dir);
      LeaseSchema.defaults().apply(desktopPool);
      ToolJournalSchema.defaults().apply(desktopPool);
      World world = new World(out);
      Setting setting = new Setting(dir, world, options.ttl(), fenced, framework);
      try (Device desktop = new Device("desktop", desktopPool, setting);
          Device browser = new Device("browser", browserPool, setting)) {
        return play(desktop, browser, world, out, JdbcToolJournal.create(desktopPool), fenced);
      }
    }
  }

  private static Verdict play(
      Device desktop,
      Device browser,
      World world,
      PrintStream out,
      JdbcToolJournal journal,
      boolean fenced) {
    Lease desktopLease = desktop.acquire();
    long[] browserFence = {0};
    int[] takeoverAt = {Integer.MAX_VALUE};
    Runnable browserTakesOver =
        () -> {
          world.log("browser", "\"continue here\": the session service ends the desktop run", 0);
          browser.store.admin().forceRelease(SESSION, OPERATOR, "continued in the browser");
          Lease browserLease = browser.acquire();
          browserFence[0] = browserLease.fence();
          takeoverAt[0] = world.now();
          ScriptedAgentModel model =
              new ScriptedAgentModel()
                  .call("sendMessage", "{\"text\":\"Continuing here; your desktop stopped.\"}")
                  .call("bookTable", "{\"name\":\"Ada\",\"time\":\"19:00\"}")
                  .call(
                      "writeFile",
                      "{\"name\":\"plan.md\",\"content\":\"Day 1: Alfama. Dinner booked, 19:00.\"}")
                  .answer("Your trip is planned and dinner is booked.");
          browser.runAgent(browserLease, model, "Continue planning my Lisbon trip");
          browserLease.close();
        };
    ScriptedAgentModel desktopModel =
        new ScriptedAgentModel()
            .call("sendMessage", "{\"text\":\"On it: planning your Lisbon trip.\"}")
            .call("writeFile", "{\"name\":\"plan.md\",\"content\":\"Day 1: Alfama.\"}")
            .callAfter(browserTakesOver, "bookTable", "{\"name\":\"Ada\",\"time\":\"19:00\"}")
            .call("sendMessage", "{\"text\":\"Dinner booked for 19:00.\"}")
            .answer("Your trip is planned.");
    Optional<String> stopped =
        desktop.runAgent(desktopLease, desktopModel, "Plan my Lisbon trip and book dinner");
    desktopLease.close();

    List<String> problems = new ArrayList<>();
    List<String> reached = new ArrayList<>();
    out.println();
    out.println("What reached the world:");
    for (World.Effect e : world.effects()) {
      boolean stale = e.device().equals("desktop") && e.seq() > takeoverAt[0];
      String line =
          String.format("%-8s fence %-3d %-8s %s", e.device(), e.fence(), e.kind(), e.what());
      reached.add(line);
      out.println("  " + line + (stale ? "   <-- STALE: the desktop run had been superseded" : ""));
      if (stale) {
        problems.add(
            "a call of the superseded desktop run reached the world: " + e.kind() + " " + e.what());
      }
    }
    if (fenced) {
      out.println();
      out.println("The session's tool journal:");
      for (ToolCall c : journal.calls(SESSION)) {
        out.printf(
            "  fence %-3d %-12s %-9s %s%n",
            c.token().fence(), c.tool(), c.state(), c.error().orElse(""));
      }
      out.println("  (a superseded run's refused calls add nothing to the journal)");
    }
    out.println();
    if (problems.isEmpty()) {
      out.println(
          "PASS: no call of the superseded desktop run reached the world"
              + stopped.map(s -> "; it stopped (" + s + ")").orElse(""));
    } else {
      problems.forEach(p -> out.println("FAIL: " + p));
    }
    return new Verdict(
        problems.isEmpty(),
        List.copyOf(problems),
        desktopLease.fence(),
        browserFence[0],
        List.copyOf(reached),
        stopped);
  }

  /**
   * What both devices share: the files' directory, the world their tools act on, the lease TTL,
   * whether their tools are fenced, and the agent framework.
   */
  private record Setting(
      Path dir, World world, Duration ttl, boolean fenced, Framework framework) {}

  /** One device: its own lease store and tool fence, as if in its own process. */
  private static final class Device implements AutoCloseable {
    final String name;
    final LeaseStore store;
    final World world;
    final AgentToolFence agentFence;
    final LangChain4jToolFence toolFence;
    final AdkToolFence adkFence;
    final TripTools tools;
    final boolean fenced;
    final Framework framework;

    Device(String name, HikariDataSource pool, Setting setting) {
      this.name = name;
      this.world = setting.world();
      this.fenced = setting.fenced();
      this.framework = setting.framework();
      this.store =
          LeaseStore.builder(pool)
              .accessPolicy(AccessPolicy.callerOwnsAccount().withAdministrators(Set.of(OPERATOR)))
              .ttl(setting.ttl())
              .build();
      FencedToolExecutor executor =
          FencedToolExecutor.builder()
              .verifier(TokenVerifier.trustEveryWriter())
              .journal(JdbcToolJournal.create(pool))
              .build();
      this.agentFence =
          AgentToolFence.builder(executor)
              .listener(
                  stop ->
                      world.log(
                          name,
                          "tool " + stop.tool() + " REFUSED: " + stop.reason(),
                          stop.token().fence()))
              .build();
      this.toolFence = LangChain4jToolFence.builder(agentFence).build();
      this.adkFence = AdkToolFence.builder(agentFence).build();
      this.tools =
          new TripTools(
              name,
              world,
              FencedFileStore.open(
                  setting.dir().resolve("files"), TokenVerifier.trustEveryWriter()));
    }

    Lease acquire() {
      AcquireResult r =
          store.tryAcquire(AcquireRequest.of(SESSION, SESSION.accountId()).withHolder(name));
      if (!(r instanceof AcquireResult.Acquired acquired)) {
        throw new IllegalStateException(name + " could not acquire " + SESSION + ": " + r);
      }
      Lease lease = acquired.lease().keepAlive();
      world.log(name, "acquired session " + SESSION, lease.fence());
      if (fenced) {
        FencedToolExecutor.RunStart start = agentFence.startRun(lease);
        world.log(
            name,
            "run started; unconfirmed calls of earlier runs: "
                + (start.inDoubt().isEmpty() ? "none" : start.inDoubt().size()),
            lease.fence());
      }
      return lease;
    }

    /** Runs the agent; returns how it was stopped, if it was. */
    Optional<String> runAgent(Lease lease, ScriptedAgentModel model, String request) {
      try {
        String answer =
            framework == Framework.ADK
                ? runOnAdk(lease, model, request)
                : runOnLangChain4j(lease, model, request);
        world.log(name, "agent answered: " + answer, lease.fence());
        return Optional.empty();
      } catch (RunStoppedException e) {
        world.log(
            name,
            "run stopped: " + e.stop().reason() + ", its remaining steps never ran",
            lease.fence());
        return Optional.of(e.stop().reason().toString());
      }
    }

    private String runOnLangChain4j(Lease lease, ScriptedAgentModel model, String request) {
      AiServices<TripAgent> b = AiServices.builder(TripAgent.class).chatModel(model);
      if (fenced) {
        b.tools(toolFence.wrapObjects(tools)).toolExecutionErrorHandler(toolFence.errorHandler());
      } else {
        b.tools(tools);
      }
      return b.build().chat(request, LangChain4jToolFence.parameters(lease));
    }

    /**
     * The same agent on ADK: the fence is one plugin on the runner, the lease in the run config.
     */
    private String runOnAdk(Lease lease, ScriptedAgentModel model, String request) {
      LlmAgent agent =
          LlmAgent.builder()
              .name("trip_planner")
              .model(new ScriptedAdkModel(model))
              .tools(new AdkTripTools(tools).functionTools())
              .build();
      Runner runner =
          new InMemoryRunner(agent, "trips", fenced ? List.of(adkFence.plugin()) : List.of());
      Session session =
          runner.sessionService().createSession("trips", SESSION.accountId()).blockingGet();
      RunConfig config = fenced ? AdkToolFence.runConfig(lease) : RunConfig.builder().build();
      Event last =
          runner
              .runAsync(
                  SESSION.accountId(),
                  session.id(),
                  Content.fromParts(Part.fromText(request)),
                  config)
              .blockingLast();
      return last.content().map(Content::text).orElse("");
    }

    @Override
    public void close() {
      store.close();
    }
  }
}
