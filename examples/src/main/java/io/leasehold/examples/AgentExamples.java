package io.leasehold.examples;

import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.invocation.InvocationParameters;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.leasehold.adapters.agent.AgentToolFence;
import io.leasehold.adapters.agent.AgentToolOutcome;
import io.leasehold.adapters.agent.RunStoppedException;
import io.leasehold.adapters.agent.SessionLeases;
import io.leasehold.adapters.tool.FencedToolExecutor;
import io.leasehold.adapters.tool.JdbcToolJournal;
import io.leasehold.adapters.tool.ToolCall;
import io.leasehold.adapters.tool.ToolJournalSchema;
import io.leasehold.fencing.FencingToken;
import io.leasehold.fencing.LeaseKey;
import io.leasehold.fencing.StaleFenceException;
import io.leasehold.fencing.TokenTransport;
import io.leasehold.fencing.TokenVerifier;
import io.leasehold.langchain4j.LangChain4jToolFence;
import io.leasehold.lease.Lease;
import io.leasehold.springai.SpringAiToolFence;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ToolContext;

/**
 * The samples of docs/agents.md, compiled (and run by AgentExamplesTest) so they cannot drift from
 * the integrations' API.
 */
public final class AgentExamples {
  private AgentExamples() {}

  /** The AI service of the samples. */
  public interface Assistant {
    /**
     * Asks the agent.
     *
     * @param request what the user asked
     * @param run the run's lease, as invocation parameters
     * @return the answer
     */
    String chat(@UserMessage String request, InvocationParameters run);
  }

  /** An AI service whose conversations are named by {@code @MemoryId}. */
  public interface SessionAssistant {
    /**
     * Asks the agent in a conversation.
     *
     * @param sessionId the conversation, which is the session
     * @param request what the user asked
     * @return the answer
     */
    String chat(@MemoryId String sessionId, @UserMessage String request);
  }

  /** Tools of the samples: one that calls a downstream service with the token. */
  public static final class BookingTools {
    final List<HttpRequest> sent = new ArrayList<>();

    /**
     * Books a table through the restaurant's API, forwarding the run's token.
     *
     * @param name who for
     * @param parameters the invocation's parameters
     * @return what happened
     */
    // region lc4j-forward
    @Tool("Books a restaurant table")
    public String bookTable(String name, InvocationParameters parameters) {
      FencingToken token = LangChain4jToolFence.token(parameters).orElseThrow();
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("https://bookings.example/tables"))
              .header(
                  TokenTransport.HTTP_HEADER,
                  token.toText()) // the service can refuse a stale run itself
              .POST(HttpRequest.BodyPublishers.ofString(name))
              .build();
      sent.add(request); // httpClient.send(request, ...) in a real tool
      return "booked for " + name;
    }

    // endregion

    /**
     * The requests the tool would have sent.
     *
     * @return them
     */
    public List<HttpRequest> sent() {
      return List.copyOf(sent);
    }
  }

  /** Tools for Spring AI: the same booking, reading the token from the tool context. */
  public static final class SpringBookingTools {
    final List<FencingToken> tokens = new ArrayList<>();

    /**
     * Books a table.
     *
     * @param name who for
     * @param context the tool context
     * @return what happened
     */
    // region spring-ai-forward
    @org.springframework.ai.tool.annotation.Tool(description = "Books a restaurant table")
    public String bookTable(String name, ToolContext context) {
      FencingToken token = SpringAiToolFence.token(context).orElseThrow();
      tokens.add(token); // forward token.toText() in the Leasehold-Token header
      return "booked for " + name;
    }

    // endregion

    /**
     * The tokens the tool saw.
     *
     * @return them
     */
    public List<FencingToken> tokens() {
      return List.copyOf(tokens);
    }
  }

  /**
   * A LangChain4j run: builds the fence, starts the run and asks the agent.
   *
   * @param dataSource the database holding the tool journal
   * @param model the chat model
   * @param tools the tools
   * @param lease the run's lease
   * @return the answer, or null if the run was superseded
   */
  public static String langChain4j(
      DataSource dataSource, ChatModel model, BookingTools tools, Lease lease) {
    // region lc4j-setup
    ToolJournalSchema.defaults().apply(dataSource); // the journal's two tables, once per database
    FencedToolExecutor executor =
        FencedToolExecutor.builder()
            .verifier(TokenVerifier.trustEveryWriter()) // or TokenVerifier.signedBy(keys)
            .journal(JdbcToolJournal.create(dataSource)) // shared by every process of the service
            .build();
    AgentToolFence fence = AgentToolFence.builder(executor).build();
    LangChain4jToolFence toolFence = LangChain4jToolFence.builder(fence).build();

    Assistant assistant =
        AiServices.builder(Assistant.class)
            .chatModel(model)
            .tools(toolFence.wrapObjects(tools)) // your @Tool objects, unchanged
            .toolExecutionErrorHandler(toolFence.errorHandler()) // lets a refusal end the call
            .build();
    // endregion
    // region lc4j-run
    try {
      FencedToolExecutor.RunStart start =
          fence.startRun(lease); // older runs are refused from now on
      for (ToolCall c : start.inDoubt()) {
        System.out.println("unconfirmed call of an earlier run: " + c.tool() + " " + c.arguments());
      }
      return assistant.chat("Book a table for Ada", LangChain4jToolFence.parameters(lease));
    } catch (StaleFenceException | RunStoppedException e) {
      // A newer run of this session has started (or this lease was lost): no tool of this run ran.
      System.out.println("stopped: " + e.getMessage());
      return null;
    }
    // endregion
  }

  /**
   * A LangChain4j service that finds the run by its {@code @MemoryId}.
   *
   * @param fence the agent fence
   * @param model the chat model
   * @param tools the tools
   * @param lease the run's lease
   * @return the answer
   */
  public static String langChain4jBySession(
      AgentToolFence fence, ChatModel model, BookingTools tools, Lease lease) {
    // region lc4j-sessions
    SessionLeases sessions = new SessionLeases(); // one per application
    LangChain4jToolFence toolFence =
        LangChain4jToolFence.builder(fence)
            .sessions(ctx -> LeaseKey.of("acct-7", (String) ctx.chatMemoryId()), sessions)
            .build();
    SessionAssistant assistant =
        AiServices.builder(SessionAssistant.class)
            .chatModel(model)
            .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
            .tools(toolFence.wrapObjects(tools))
            .toolExecutionErrorHandler(toolFence.errorHandler())
            .build();

    SessionLeases.Registration registered = sessions.register(lease); // when the run starts
    try {
      return assistant.chat(lease.key().sessionId(), "Book a table for Ada");
    } finally {
      registered.close(); // when it ends
    }
    // endregion
  }

  /**
   * A Spring AI run.
   *
   * @param fence the agent fence
   * @param chatClient the chat client
   * @param tools the tools
   * @param lease the run's lease
   * @return the answer
   */
  public static String springAi(
      AgentToolFence fence, ChatClient chatClient, SpringBookingTools tools, Lease lease) {
    // region spring-ai
    SpringAiToolFence toolFence = SpringAiToolFence.builder(fence).build();
    fence.startRun(lease);
    return chatClient
        .prompt()
        .user("Book a table for Ada")
        .tools(toolFence.wrapObjects(tools)) // your @Tool objects, unchanged
        .toolContext(SpringAiToolFence.toolContext(lease)) // which run these calls belong to
        .call() // throws RunStoppedException if a newer run took over
        .content();
    // endregion
  }

  /** A model's reply in a plain function-calling loop: tool calls, or the final text. */
  public record ModelReply(List<ModelToolCall> toolCalls, String text) {}

  /** One tool call the model asked for. */
  public record ModelToolCall(String name, String argumentsJson) {}

  /**
   * A function-calling loop with no framework.
   *
   * @param fence the agent fence
   * @param lease the run's lease
   * @param model the model: given the tool results so far, the next reply
   * @param tools the application's tools: name to function from arguments to result
   * @return the final text, or null if the run had to stop
   */
  public static String plainLoop(
      AgentToolFence fence,
      Lease lease,
      Function<List<String>, ModelReply> model,
      Map<String, Function<String, String>> tools) {
    // region plain-loop
    fence.startRun(lease);
    List<String> results = new ArrayList<>();
    while (true) {
      ModelReply reply = model.apply(results);
      if (reply.toolCalls().isEmpty()) {
        return reply.text();
      }
      for (ModelToolCall call : reply.toolCalls()) {
        Function<String, String> tool = tools.get(call.name());
        AgentToolOutcome<String> outcome =
            fence.call(
                lease,
                call.name(),
                call.argumentsJson(),
                admitted -> tool.apply(call.argumentsJson()),
                r -> r);
        if (outcome instanceof AgentToolOutcome.Refused<String> refused) {
          // Superseded or lost: the tool did not run. End the loop (or tell the model and then
          // end).
          System.out.println(refused.stop().messageForModel());
          return null;
        }
        results.add(
            outcome instanceof AgentToolOutcome.Replayed<String> replayed
                ? replayed
                    .journaledResult() // a retry of a finished call: the tool did not run again
                : ((AgentToolOutcome.Ran<String>) outcome).value());
      }
    }
    // endregion
  }
}
