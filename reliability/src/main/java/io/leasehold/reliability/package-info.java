/**
 * The torture run: many workers over a few lease keys under seeded faults, a recorded history of
 * every operation, and a checker that reads the history and the resources' own logs and reports
 * every violation of the contract. Start with {@link io.leasehold.reliability.TortureMain}.
 */
package io.leasehold.reliability;
