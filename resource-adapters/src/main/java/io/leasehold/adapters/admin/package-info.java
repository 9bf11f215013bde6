/** Commands for resource owners: the audited reset of a high-water mark from the shell. */
package io.leasehold.adapters.admin;
