package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.idempotent;
import static io.leasehold.adapters.tool.TestTools.trustingExecutor;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.adapters.HarnessFactories;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Child process of {@link CrashedCalls}: one idempotent tool call, and the process halts (no
 * shutdown hooks, no flushing) at the step named by the third argument: {@code before-start} (the
 * PostgreSQL journal only: the intent is written and the journal is about to record the start),
 * {@code before-effect} (the start is journaled, the tool has not acted), {@code after-effect} (the
 * tool acted, its result is not journaled) or {@code after-return} (the executor returned the
 * result). Arguments: the journal (a file, or a database as {@code url\nuser\npassword}), effects
 * file, step, fence, session id.
 */
public final class CrashingCallMain {
  private CrashingCallMain() {}

  public static void main(String[] args) {
    Path effects = Path.of(args[1]);
    String step = args[2];
    FencedTool send =
        idempotent(
            "send_mail",
            arguments -> arguments.get("message").asText(),
            invocation -> {
              halt(step, "before-effect");
              Files.writeString(
                  effects,
                  "sent\n",
                  StandardCharsets.UTF_8,
                  StandardOpenOption.CREATE,
                  StandardOpenOption.APPEND);
              halt(step, "after-effect");
              return JsonNodeFactory.instance.textNode("sent once");
            });
    ToolJournal journal =
        args[0].startsWith("jdbc:")
            ? JdbcToolJournal.create(
                haltingBeforeTheStart(HarnessFactories.dataSource(args[0]), step))
            : FileToolJournal.open(Path.of(args[0]));
    FencedToolExecutor executor = trustingExecutor(journal).tool(send).build();
    FencingToken token =
        new FencingToken(LeaseKey.of("acct", args[4]), Long.parseLong(args[3]), UUID.randomUUID());
    executor.call(token, "send_mail", JsonNodeFactory.instance.objectNode().put("message", "m-1"));
    halt(step, "after-return");
  }

  /** Connections that halt the process when the journal is about to record a call as started. */
  private static DataSource haltingBeforeTheStart(DataSource real, String step) {
    return proxy(
        DataSource.class,
        real,
        (method, result) -> {
          if (!(result instanceof Connection c)) {
            return result;
          }
          return proxy(
              Connection.class,
              c,
              (m, r) -> r,
              (m, a) -> {
                if (m.getName().equals("prepareStatement")
                    && ((String) a[0]).contains("SET state = 'STARTED'")) {
                  halt(step, "before-start");
                }
              });
        },
        (m, a) -> {});
  }

  private interface After {
    Object apply(java.lang.reflect.Method method, Object result) throws Exception;
  }

  private interface Before {
    void accept(java.lang.reflect.Method method, Object[] args);
  }

  private static <T> T proxy(Class<T> type, T target, After after, Before before) {
    return type.cast(
        Proxy.newProxyInstance(
            CrashingCallMain.class.getClassLoader(),
            new Class<?>[] {type},
            (p, method, a) -> {
              before.accept(method, a);
              try {
                return after.apply(method, method.invoke(target, a));
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            }));
  }

  private static void halt(String step, String here) {
    if (step.equals(here)) {
      System.out.println("HALT " + here);
      System.out.flush();
      Runtime.getRuntime().halt(3);
    }
  }
}
