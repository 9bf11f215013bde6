/**
 * The mark-store SPI: a durable high-water mark per lease key in one medium, shared by every guard
 * and tool journal that keeps marks in that medium.
 */
package io.leasehold.fencing.mark;
