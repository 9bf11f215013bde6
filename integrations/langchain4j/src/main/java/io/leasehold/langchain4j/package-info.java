/**
 * Fences the tool calls of LangChain4j AI services: {@link
 * io.leasehold.langchain4j.LangChain4jToolFence} decorates the {@code ToolExecutor}s an AI service
 * is given, so a superseded run's tools never run and the model is told to stop. See
 * docs/agents.md.
 */
package io.leasehold.langchain4j;
