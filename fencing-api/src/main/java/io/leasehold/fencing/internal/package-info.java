/**
 * What the Leasehold modules share and do not offer to applications: the checks of their builders'
 * and records' arguments, the wording of an out-of-scope refusal, and the end of a failed JDBC
 * transaction. Not an API; it may change in any release.
 */
package io.leasehold.fencing.internal;
