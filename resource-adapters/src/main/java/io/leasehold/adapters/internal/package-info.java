/**
 * Support shared by the JDBC writer and the tool journals (the mark store on SQL, transactions,
 * lock timeouts, SQL names, the changelog helper). Not an API: the module does not export this
 * package, and its classes may change in any release.
 */
package io.leasehold.adapters.internal;
