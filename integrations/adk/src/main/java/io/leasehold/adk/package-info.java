/**
 * Fences the tool calls of Google Agent Development Kit (ADK for Java) agents: {@link
 * io.leasehold.adk.AdkToolFence}'s runner plugin puts a fenced decorator in place of every tool the
 * model may call, so a superseded run's tools never run and the run stops. See docs/agents.md.
 */
package io.leasehold.adk;
