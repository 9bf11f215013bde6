/**
 * The mark store on files ({@link io.leasehold.adapters.mark.FileMarkStore}), shared by the file
 * store and the file tool journal: one implementation of {@link
 * io.leasehold.fencing.mark.MarkStore} per medium. Not an API: the module exports this package only
 * to {@code io.leasehold.adapters}.
 */
package io.leasehold.adapters.mark;
