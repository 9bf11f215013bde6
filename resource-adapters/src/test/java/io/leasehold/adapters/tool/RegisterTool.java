package io.leasehold.adapters.tool;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** A side-effecting test tool: sets a value in an external register (a map it does not own). */
public final class RegisterTool implements FencedTool {
  private final Map<String, String> register;

  public RegisterTool(Map<String, String> register) {
    this.register = register;
  }

  public RegisterTool() {
    this(new ConcurrentHashMap<>());
  }

  @Override
  public String name() {
    return "set";
  }

  @Override
  public JsonNode call(ToolInvocation invocation) {
    register.put(
        invocation.arguments().get("key").asText(), invocation.arguments().get("value").asText());
    return JsonNodeFactory.instance.textNode("ok");
  }
}
