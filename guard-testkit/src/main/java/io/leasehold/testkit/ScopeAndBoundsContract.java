package io.leasehold.testkit;

/**
 * CONTRACTS C19 and C21 together, for a guard that keeps state of its own (files, rows): a token
 * acts only for its own key ({@link TokenScopeContract}), one account never gets another's run
 * refused ({@link AccountIsolationContract}), refused input grows nothing ({@link
 * BoundedGrowthContract}) and no operation waits without bound ({@link BoundedWaitContract}).
 * Implement each part's harness methods; a guard whose resources the application's own code chooses
 * (a database writer) implements the parts that apply instead.
 */
public interface ScopeAndBoundsContract
    extends TokenScopeContract,
        AccountIsolationContract,
        BoundedGrowthContract,
        BoundedWaitContract {}
