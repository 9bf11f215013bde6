/**
 * Support for the schema classes of the other modules: how a Liquibase changelog is applied.
 * Not an API; it may change in any release.
 */
package io.leasehold.fencing.schema;
