/** The agent demo: a LangChain4j agent on two devices, its superseded run's tools refused. */
package io.leasehold.examples.agent;
