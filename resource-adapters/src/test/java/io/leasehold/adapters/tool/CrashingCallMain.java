package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.idempotent;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.TokenVerifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * Child process of {@link JournalGroupCommitTest}: one idempotent tool call through the file
 * journal, and the process halts (no shutdown hooks, no flushing) at the step named by the third
 * argument: {@code before-effect} (the start is journaled, the tool has not acted), {@code
 * after-effect} (the tool acted, its result is not journaled) or {@code after-return} (the
 * executor returned the result). Arguments: journal file, effects file, step, fence.
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
              Files.writeString(effects, "sent\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
              halt(step, "after-effect");
              return JsonNodeFactory.instance.textNode("sent once");
            });
    FencedToolExecutor executor =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter())
            .journal(FileToolJournal.open(Path.of(args[0])))
            .tool(send)
            .build();
    FencingToken token = new FencingToken(LeaseKey.of("acct", "chat"), Long.parseLong(args[3]), UUID.randomUUID());
    executor.call(token, "send_mail", JsonNodeFactory.instance.objectNode().put("message", "m-1"));
    halt(step, "after-return");
  }

  private static void halt(String step, String here) {
    if (step.equals(here)) {
      System.out.println("HALT " + here);
      System.out.flush();
      Runtime.getRuntime().halt(3);
    }
  }
}
