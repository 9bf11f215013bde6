/** Database writes that commit only for the newest run of each session. */
package io.leasehold.adapters.jdbc;
