package io.leasehold.adapters.tool;

import static io.leasehold.adapters.tool.TestTools.trustingExecutor;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import java.nio.file.Path;
import java.util.UUID;

/**
 * Child process of {@link FencedToolExecutorTest}: calls a tool that never returns, so the process
 * can be killed in the middle of the call. Arguments: journal file, fence.
 */
public final class HangingToolMain {
  private HangingToolMain() {}

  public static void main(String[] args) {
    FencedTool hang =
        TestTools.tool(
            "charge_card",
            invocation -> {
              System.out.println("CALLING " + invocation.callId());
              System.out.flush();
              Thread.sleep(Long.MAX_VALUE);
              return JsonNodeFactory.instance.nullNode();
            });
    FencedToolExecutor executor =
        trustingExecutor(FileToolJournal.open(Path.of(args[0]))).tool(hang).build();
    FencingToken token =
        new FencingToken(LeaseKey.of("acct", "chat"), Long.parseLong(args[1]), UUID.randomUUID());
    executor.call(token, "charge_card", JsonNodeFactory.instance.objectNode().put("amount", 42));
  }
}
