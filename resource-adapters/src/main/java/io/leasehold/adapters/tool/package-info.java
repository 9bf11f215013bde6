/**
 * Side-effecting agent tools behind a fence, with a durable journal of every call.
 *
 * <p>What it cannot stop (CONTRACT C12): a call already in flight when a newer run is admitted runs
 * to its end, and a tool that talks to a system which never sees the token is protected only by the
 * run stopping when its lease is lost. The journal is how the next run finds out which calls of an
 * earlier run may or may not have happened.
 */
package io.leasehold.adapters.tool;
