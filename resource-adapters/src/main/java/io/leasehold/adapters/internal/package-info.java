/**
 * Support shared by the adapters (the cross-process lock, state-file checks, durable file steps,
 * the changelog helper). Not an API: the module does not export this package, and its classes may
 * change in any release.
 */
package io.leasehold.adapters.internal;
