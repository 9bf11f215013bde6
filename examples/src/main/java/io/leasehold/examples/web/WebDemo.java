package io.leasehold.examples.web;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.sse.SseClient;
import io.javalin.http.staticfiles.Location;
import io.leasehold.examples.demo.DemoDatabase;
import io.leasehold.examples.demo.DemoOptions;
import io.leasehold.examples.demo.PartitionableDataSource;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.SignatureScheme;
import io.leasehold.fencing.SigningKey;
import io.leasehold.fencing.TokenKeySet;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.lease.AccessDeniedException;
import io.leasehold.lease.AccessPolicy;
import io.leasehold.lease.AcquireRequest;
import io.leasehold.lease.AcquireResult;
import io.leasehold.lease.LeaseEvent;
import io.leasehold.lease.LeaseSchema;
import io.leasehold.lease.LeaseStatus;
import io.leasehold.lease.LeaseStore;
import io.leasehold.lease.LeaseWatcher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The two-device web demo: one page per device ({@code /?device=desktop}, {@code /?device=browser})
 * of one account on one session. Every page shows the authoritative lease status, pushed live over
 * server-sent events from a {@link LeaseWatcher}, and enables its Run button from that status only.
 * Run starts a server-side agent job under a lease; Freeze cuts the device's run off from the
 * database and stalls it; Wake lets it try to finish, and shows which of its late writes each
 * resource refused (every resource the newer run has written to) or admitted (one it has not
 * written to yet), in the order the resources decided.
 *
 * <p>Run it with {@code mvn -q -pl examples -am -DskipTests -Pdemo verify
 * -Ddemo.main=io.leasehold.examples.web.WebDemo} and open the two URLs it prints.
 */
public final class WebDemo implements AutoCloseable {
  static final List<String> DEVICES = List.of("desktop", "browser");
  static final LeaseKey SESSION = LeaseKey.of("acct-7", "chat-1");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final java.util.logging.Logger LIQUIBASE =
      java.util.logging.Logger.getLogger("liquibase");

  private final DemoDatabase db;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final Map<String, PartitionableDataSource> nets = new ConcurrentHashMap<>();
  private final Map<String, LeaseStore> stores = new ConcurrentHashMap<>();
  private final Map<String, DeviceRun> runs = new ConcurrentHashMap<>();

  /** The demo has no authentication, so it listens on loopback unless told otherwise. */
  static final String LOOPBACK = "127.0.0.1";

  private final Queue<SseClient> clients = new ConcurrentLinkedQueue<>();
  private final LeaseStore statusStore;
  private final LeaseWatcher watcher;
  private final WebResources resources;
  private final Javalin app;
  private volatile LeaseStatus lastStatus;
  private final RemoteNotes remoteNotes;

  private WebDemo(DemoOptions options, String host, int port, boolean stopAtJvmExit) {
    LIQUIBASE.setLevel(java.util.logging.Level.WARNING);
    db = DemoDatabase.start(options, stopAtJvmExit);
    closeables.add(db);
    HikariDataSource shared = pool("web-status", 6);
    LeaseSchema.defaults().apply(shared);
    // The devices' stores sign their tokens (CONTRACT C15); every resource verifies them with the
    // public key alone, as a resource owner in another team would.
    SigningKey signing = SigningKey.generate(SignatureScheme.ED25519, "web-demo-1");
    TokenVerifier verifier = TokenVerifier.signedBy(TokenKeySet.of(signing.verificationKey()));
    for (String device : DEVICES) {
      PartitionableDataSource net = new PartitionableDataSource(pool("web-" + device, 4));
      nets.put(device, net);
      stores.put(
          device,
          LeaseStore.builder(net)
              .accessPolicy(AccessPolicy.callerOwnsAccount()) // C8: the account may use its session
              .ttl(options.ttl())
              .defaultHolder(device)
              .notifyChanges(true) // the page shows these leases live
              .tokenSigningKey(signing)
              .build());
    }
    statusStore =
        LeaseStore.builder(shared)
            .accessPolicy(AccessPolicy.callerOwnsAccount())
            .ttl(options.ttl())
            .build();
    try {
      Path dir = Files.createTempDirectory("leasehold-web-");
      resources = new WebResources(dir, shared, verifier, this::pushWrite);
      remoteNotes = new RemoteNotes(dir.resolve("remote-notes"), verifier);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    watcher = LeaseWatcher.start(statusStore, pool("web-listen", 1));
    watcher.subscribe(SESSION, this::pushStatus);

    app =
        Javalin.create(
            config -> {
              config.staticFiles.add("/web", Location.CLASSPATH);
              config.showJavalinBanner = false;
            });
    app.sse("/api/events", this::connect);
    app.post("/api/run", this::run);
    app.post("/api/freeze", ctx -> control(ctx, true));
    app.post("/api/wake", ctx -> control(ctx, false));
    remoteNotes.route(app);
    app.start(host, port);
  }

  /**
   * Starts the demo server on the loopback interface.
   *
   * @param options database and TTL options
   * @param port the HTTP port, 0 for any free one
   * @return the running server; close it to stop
   */
  public static WebDemo start(DemoOptions options, int port) {
    return start(options, LOOPBACK, port);
  }

  /**
   * Starts the demo server.
   *
   * @param options database and TTL options
   * @param host the interface to listen on: {@code 127.0.0.1} by default, {@code 0.0.0.0} for every
   *     interface (the demo has no authentication: only for a trusted network)
   * @param port the HTTP port, 0 for any free one
   * @return the running server; close it to stop
   */
  public static WebDemo start(DemoOptions options, String host, int port) {
    return new WebDemo(options, host, port, true);
  }

  /**
   * The HTTP port.
   *
   * @return the port
   */
  public int port() {
    return app.port();
  }

  /** The three resources and their log, for tests that check them against the pages. */
  WebResources resources() {
    return resources;
  }

  /** A device's lease store, for tests that present its tokens to the remote resource. */
  LeaseStore store(String device) {
    return stores.get(device);
  }

  /**
   * Runs the demo from the command line: the demo options plus {@code --port <n>} (default 7070).
   *
   * @param args the options
   * @throws InterruptedException when interrupted (the server runs until the process ends)
   */
  public static void main(String[] args) throws InterruptedException {
    int port = 7070;
    String host = LOOPBACK;
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--port") && i + 1 < args.length) {
        port = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--host") && i + 1 < args.length) {
        host = args[++i];
      } else {
        rest.add(args[i]);
      }
    }
    DemoOptions options = DemoOptions.parse(rest.toArray(String[]::new));
    if (options.help()) {
      System.out.println(
          "Web demo: --host <address> (default 127.0.0.1; 0.0.0.0 listens on every interface), --port <n>"
              + " (default 7070), --ttl <duration> (default 2s), --jdbc-url ...");
      return;
    }
    // Its database is closed by the hook below, after the watcher and the stores, not by a hook
    // of its own that could stop it under them.
    WebDemo demo = new WebDemo(options, host, port, false);
    // Ctrl-C and SIGTERM end the demo as its own close would: the watcher, the stores, the
    // database and its directory, then exit 0 (a stop asked for is not a failure; the JVM would
    // otherwise report 143, and the watcher a connection pulled away under it).
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    demo.close();
                  } finally {
                    demo.db.close();
                  }
                  System.out.println("Web demo stopped.");
                  System.out.flush();
                  Runtime.getRuntime().halt(0);
                },
                "web-demo-stop"));
    String shown = host.equals("0.0.0.0") ? "localhost" : host;
    System.out.println("Leasehold web demo on " + demo.db.describe() + ". Open the two devices:");
    for (String d : DEVICES) {
      System.out.println("  http://" + shown + ":" + demo.port() + "/?device=" + d);
    }
    System.out.println("Ctrl-C (or SIGTERM) stops it.");
    Thread.currentThread().join();
  }

  // ------------------------------------------------------------------ HTTP

  private void connect(SseClient client) {
    client.keepAlive();
    client.onClose(() -> clients.remove(client));
    clients.add(client);
    // The current state is the first event of every stream (issue 31): a page opened on a quiet
    // session must not wait for a change that may never come.
    LeaseStatus now = lastStatus;
    try {
      now = statusStore.status(SESSION, SESSION.accountId());
    } catch (io.leasehold.lease.LeaseStoreException e) {
      System.err.println(
          "status read for a new page failed, sending the last one seen: " + e.getMessage());
    }
    if (now != null) {
      client.sendEvent("status", statusJson(now).put("event", "CURRENT").toString());
    }
    for (String d : DEVICES) {
      client.sendEvent("device", deviceJson(d));
    }
    for (WebResources.WriteLog w : resources.entries()) {
      client.sendEvent("write", writeJson(w));
    }
  }

  private void run(Context ctx) {
    String device = ctx.formParam("device");
    String account = ctx.formParam("account");
    if (device == null || !DEVICES.contains(device) || account == null || account.isBlank()) {
      ctx.status(400).result("device (desktop or browser) and account are required");
      return;
    }
    DeviceRun current = runs.get(device);
    DeviceRun.State state = current == null ? null : current.status().state();
    if (state == DeviceRun.State.RUNNING || state == DeviceRun.State.FROZEN) {
      ctx.status(409).result(device + " is already running");
      return;
    }
    AcquireResult result;
    try {
      // The store asks the access policy first: another account never touches the lease table.
      result =
          stores.get(device).tryAcquire(AcquireRequest.of(SESSION, account).withHolder(device));
    } catch (AccessDeniedException e) {
      ctx.status(403).result(e.getMessage());
      return;
    }
    ObjectNode answer = JSON.createObjectNode();
    if (result instanceof AcquireResult.Acquired a) {
      DeviceRun run =
          new DeviceRun(device, a.lease().keepAlive(), resources, r -> pushDevice(r.device()));
      runs.put(device, run);
      Thread t = new Thread(run, "web-run-" + device);
      t.setDaemon(true);
      t.start();
      answer.put("acquired", true).put("fence", a.lease().fence());
      pushDevice(device);
    } else if (result instanceof AcquireResult.Busy b) {
      answer.put("acquired", false).set("status", statusJson(b.status()));
    } else {
      answer.put("acquired", false);
    }
    ctx.contentType("application/json").result(answer.toString());
  }

  private void control(Context ctx, boolean freeze) {
    String device = ctx.formParam("device");
    DeviceRun run = device == null ? null : runs.get(device);
    if (run == null) {
      ctx.status(404).result("no run on " + device);
      return;
    }
    if (freeze) {
      nets.get(device).partition(true);
      run.freeze();
    } else {
      nets.get(device).partition(false);
      run.wake();
    }
    ctx.result("ok");
  }

  // ------------------------------------------------------------------ pushing

  private void pushStatus(LeaseEvent event) {
    lastStatus = event.status();
    broadcast("status", statusJson(event.status()).put("event", event.kind().name()));
  }

  private void pushDevice(String device) {
    broadcast("device", deviceJson(device));
  }

  private void pushWrite(WebResources.WriteLog w) {
    broadcast("write", writeJson(w));
  }

  private void broadcast(String event, ObjectNode data) {
    for (SseClient c : clients) {
      try {
        c.sendEvent(event, data.toString());
      } catch (RuntimeException e) {
        clients.remove(c);
      }
    }
  }

  private static ObjectNode statusJson(LeaseStatus s) {
    ObjectNode n = JSON.createObjectNode();
    n.put("state", s.state().name());
    n.put("databaseNow", s.databaseNow().toEpochMilli());
    n.put("acquirableAt", s.acquirableAt().toEpochMilli());
    s.owner()
        .ifPresent(
            o ->
                n.put("holder", o.holder())
                    .put("runId", o.runId().toString())
                    .put("fence", o.fence())
                    .put("expiresAt", o.expiresAt().toEpochMilli()));
    return n;
  }

  private ObjectNode deviceJson(String device) {
    DeviceRun run = runs.get(device);
    ObjectNode n = JSON.createObjectNode().put("device", device);
    if (run == null) {
      return n.put("state", "IDLE").put("message", "").put("frozen", false);
    }
    DeviceRun.Status status = run.status();
    return n.put("state", status.state().name())
        .put("fence", run.token().fence())
        .put("message", status.message())
        .put("frozen", run.frozen());
  }

  private static ObjectNode writeJson(WebResources.WriteLog w) {
    return JSON.createObjectNode()
        .put("seq", w.seq())
        .put("device", w.device())
        .put("adapter", w.adapter())
        .put("fence", w.fence())
        .put("admitted", w.admitted())
        .put("late", w.late())
        .put("highestBefore", w.highestBefore())
        .put("outcome", w.outcome());
  }

  private HikariDataSource pool(String name, int size) {
    HikariDataSource p = db.pool(name, size);
    closeables.add(0, p);
    return p;
  }

  /** Stops the server, the runs' stores and the database. */
  @Override
  public void close() {
    // The watcher before the pools and the database, so its listening connection is closed by
    // it and not pulled away under it (a WARN with SQLSTATE 08003 at every stop).
    watcher.close();
    app.stop();
    runs.values().forEach(DeviceRun::wake);
    nets.values().forEach(n -> n.partition(false));
    stores.values().forEach(LeaseStore::close);
    statusStore.close();
    for (AutoCloseable c : closeables) {
      try {
        c.close();
      } catch (Exception e) {
        System.err.println("closing " + c + ": " + e);
      }
    }
  }
}
