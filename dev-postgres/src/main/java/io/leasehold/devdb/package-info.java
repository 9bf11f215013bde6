/**
 * A local PostgreSQL for development, demos and tests: {@link io.leasehold.devdb.LocalPostgres}.
 */
package io.leasehold.devdb;
