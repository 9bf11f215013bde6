/**
 * What every agent-framework integration shares: {@link io.leasehold.adapters.agent.AgentToolFence}
 * admits a framework's tool call through a {@link io.leasehold.adapters.tool.FencedToolExecutor}
 * and turns a refusal into a {@link io.leasehold.adapters.agent.RunStop} that the model can read
 * and the application can act on; {@link io.leasehold.adapters.agent.SessionLeases} finds the
 * live run of a session when a framework hands over only the conversation's identity. The
 * LangChain4j and Spring AI modules build on it; a plain function-calling loop can use it directly
 * (docs/agents.md).
 */
package io.leasehold.adapters.agent;
