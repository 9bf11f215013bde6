/**
 * The agent-tool core: {@link io.leasehold.adapters.agent.AgentToolFence} admits every agent tool
 * call (from LangChain4j, Spring AI, a fenced MCP server or a plain function-calling loop) through
 * a {@link io.leasehold.adapters.tool.FencedToolExecutor}, with idempotency keys per run, and turns
 * a refusal into a {@link io.leasehold.adapters.agent.RunStop} that carries the shared {@link
 * io.leasehold.fencing.Refusal} and that the model can read and the application act on; {@link
 * io.leasehold.adapters.agent.FrameworkToolFence} finds the run an in-process framework's call
 * belongs to, and {@link io.leasehold.adapters.agent.SessionLeases} the live run of a session when
 * a framework hands over only the conversation's identity (docs/agents.md).
 */
package io.leasehold.adapters.agent;
