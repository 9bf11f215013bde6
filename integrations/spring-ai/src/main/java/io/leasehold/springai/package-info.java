/**
 * Fences the tool calls of Spring AI: {@link io.leasehold.springai.SpringAiToolFence} decorates the
 * {@code ToolCallback}s a {@code ChatClient} is given, so a superseded run's tools never run. See
 * docs/agents.md.
 */
package io.leasehold.springai;
