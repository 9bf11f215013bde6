/** The demos: a stale writer refused by every adapter, in one process and with real processes. */
package io.leasehold.examples.demo;
