/** The two-device web demo: live lease status pushed to every screen, tested in a real browser. */
package io.leasehold.examples.web;
