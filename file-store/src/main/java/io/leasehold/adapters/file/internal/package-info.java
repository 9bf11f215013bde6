/**
 * Support shared by the file store and the file tool journal: durable file steps, state-file checks
 * and the cross-process lock. Not an API: the module exports this package only to {@code
 * io.leasehold.adapters}, and its classes may change in any release.
 */
package io.leasehold.adapters.file.internal;
