package io.leasehold.examples.agent;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.invocation.InvocationParameters;
import io.leasehold.adapters.file.FencedFileStore;
import io.leasehold.fencing.FencingToken;
import io.leasehold.langchain4j.LangChain4jToolFence;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The agent's side-effecting tools, as an application would write them: plain LangChain4j
 * {@code @Tool} methods. Two of them act on systems that never see a token (a message service, a
 * restaurant's booking API), so only the fence around the tool call protects them; the file tool
 * forwards the token to a fenced file store as well (without Leasehold there is no token, and this
 * demo's unfenced variant records the effect only). {@link AdkTripTools} gives the same tools to
 * ADK.
 *
 * @param device the device whose agent calls the tools, as the world's log names it
 * @param world the systems the tools act on
 * @param files the fenced file store the file tool writes to
 */
public record TripTools(String device, World world, FencedFileStore files) {
  /**
   * Sends the user a chat message.
   *
   * @param text the message
   * @param parameters the invocation's parameters, which carry the admitted token
   * @return what happened
   */
  @Tool("Sends the user a chat message")
  public String sendMessage(@P("the message") String text, InvocationParameters parameters) {
    return send(text, LangChain4jToolFence.token(parameters));
  }

  /**
   * Writes a file of the conversation.
   *
   * @param name the file's name
   * @param content what to write
   * @param parameters the invocation's parameters, which carry the admitted token
   * @return what happened
   */
  @Tool("Writes a file of the conversation")
  public String writeFile(
      @P("file name") String name, @P("content") String content, InvocationParameters parameters) {
    return write(name, content, LangChain4jToolFence.token(parameters));
  }

  /**
   * Books a restaurant table.
   *
   * @param name who for
   * @param time when
   * @param parameters the invocation's parameters, which carry the admitted token
   * @return what happened
   */
  @Tool("Books a restaurant table")
  public String bookTable(
      @P("guest name") String name, @P("time") String time, InvocationParameters parameters) {
    return book(name, time, LangChain4jToolFence.token(parameters));
  }

  // What the tools do, whichever framework calls them with the admitted token (or none).

  String send(String text, Optional<FencingToken> token) {
    world.effect(device, fence(token), "message", text);
    return "message sent";
  }

  String write(String name, String content, Optional<FencingToken> token) {
    if (token.isPresent()) {
      // The admitted token is forwarded: the file store checks the fence again, next to the data.
      files.write(
          token.get(),
          token.get().key().accountId() + "/" + token.get().key().sessionId() + "/" + name,
          content.getBytes(StandardCharsets.UTF_8));
    }
    world.effect(device, fence(token), "file", name + ": " + content);
    return "written";
  }

  String book(String name, String time, Optional<FencingToken> token) {
    world.effect(device, fence(token), "booking", name + " at " + time);
    return "booked";
  }

  private static long fence(Optional<FencingToken> token) {
    return token.map(FencingToken::fence).orElse(-1L);
  }
}
