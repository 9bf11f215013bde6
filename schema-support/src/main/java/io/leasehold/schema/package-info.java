/**
 * Support for the schema classes of {@code leasehold-core} and {@code leasehold-resource-adapters}:
 * how a Liquibase changelog is applied. Not an API; it may change in any release.
 */
package io.leasehold.schema;
