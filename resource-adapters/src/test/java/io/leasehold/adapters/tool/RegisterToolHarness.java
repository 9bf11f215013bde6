package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.adapters.Sneaky;
import io.leasehold.fencing.AdminPolicy;
import io.leasehold.fencing.FenceGuard;
import io.leasehold.fencing.Fenced;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.MarkReset;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.testkit.GuardHarness;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The tool executor as a register, whatever its journal: a tool {@code set} that sets a value in a
 * map, a tool {@code throw} that throws what the test asks for, and "ops" as the operator who may
 * reset marks. A subclass says how its journal is read back.
 */
public abstract class RegisterToolHarness implements GuardHarness {
  /**
   * The scope of CONTRACT C19 for the register tool: its {@code key} argument must be the token's
   * own key.
   */
  public static final ToolScope OWN_REGISTER =
      new ToolScope() {
        @Override
        public boolean permits(LeaseKey key, String tool, JsonNode arguments) {
          return !tool.equals("set") || arguments.path("key").asText().equals(name(key));
        }

        @Override
        public String ownerOf(String tool, JsonNode arguments) {
          return "register " + arguments.path("key").asText().replace('\u0000', '/');
        }
      };

  private static final ObjectMapper JSON = new ObjectMapper();
  private final Map<String, String> register;
  private final FencedToolExecutor executor;
  private volatile Throwable toThrow;

  /**
   * Builds the executor over a journal.
   *
   * @param register the map the {@code set} tool writes
   * @param verifier the executor's verifier
   * @param scope the executor's scope
   * @param journal the journal under test
   */
  protected RegisterToolHarness(
      Map<String, String> register, TokenVerifier verifier, ToolScope scope, ToolJournal journal) {
    this.register = register;
    this.executor =
        FencedToolExecutor.builder()
            .verifier(verifier)
            .scope(scope)
            .adminPolicy(AdminPolicy.operators(Set.of("ops")))
            .journal(journal)
            .tool(new RegisterTool(register))
            .tool(
                FencedTool.of(
                    "throw",
                    a -> {
                      throw Sneaky.raise(toThrow);
                    }))
            .build();
  }

  static String name(LeaseKey key) {
    return key.accountId() + "\u0000" + key.sessionId();
  }

  @Override
  public FenceGuard guard() {
    return executor;
  }

  @Override
  public void write(LeaseKey key, Fenced fenced, String value) {
    ObjectNode args = JSON.createObjectNode().put("key", name(key)).put("value", value);
    executor.call(fenced, "set", args);
  }

  /**
   * A call of a tool that throws {@code thrown} before it changes anything.
   *
   * @param key the key
   * @param token the run
   * @param thrown what the tool throws
   */
  public void writeThrowing(LeaseKey key, FencingToken token, Throwable thrown) {
    toThrow = thrown;
    executor.call(token, "throw", JSON.createObjectNode().put("key", key.accountId()));
  }

  @Override
  public Optional<String> value(LeaseKey key) {
    return Optional.ofNullable(register.get(name(key)));
  }

  @Override
  public boolean finalValueFollowsHighestFence() {
    return false; // an admitted older call may finish after a newer one (CONTRACT C12)
  }

  @Override
  public MarkReset resetMark(LeaseKey key, long newMark, String operator, String reason) {
    return executor.resetMark(key, newMark, operator, reason);
  }
}
