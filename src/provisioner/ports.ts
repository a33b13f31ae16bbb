/**
 * The narrow ports runPoolPass drives. The Azure provider (on the instance cache), the Table-backed
 * inventory, the pool lease (LeaseGuard) and the shared token buckets (SharedLimiter) implement them; `memory-provider.ts` and
 * `in-process-limiter.ts` are the in-memory versions for tests and local runs.
 */
import type { InventoryRow, Machine, ProviderId } from './machine.js';

/** A rate limit: one token per call. */
export interface Limiter {
  /**
   * Resolves once a token is taken. Rejects with the signal's reason if it aborts first (no token
   * is then consumed), and rejects at once when the limit can never grant a token (burst 0).
   */
  wait(signal: AbortSignal): Promise<void>;
}

/**
 * The pool's lease (the seed's BMDB session): proof that this invocation alone works on the pool.
 * `LeaseGuard` (src/state/leases.ts) implements it.
 */
export interface Session {
  /**
   * Resolves while the lease is held (renewing it); rejects with LeaseExpiredError once it has
   * expired or was taken over, after which the pass must stop and a later pass start over.
   */
  check(signal: AbortSignal): Promise<void>;
}

export interface Provider {
  /**
   * Every machine the provider offers this pool: used machines, and free capacity as `KnownUnused`
   * (or `PossiblyUsed`, left to the inventory to settle). Order does not matter.
   */
  listMachines(signal: AbortSignal): Promise<Machine[]>;
  /**
   * Brings one machine up: turns capacity into a machine and writes its inventory row, so that the
   * next listing of both sides agrees. Rejects when no capacity is left. Called one machine at a
   * time, never concurrently. Resolves with the machine now in use.
   */
  createMachine(machine: Machine, signal: AbortSignal): Promise<Machine>;
  /** Whether an inventory row's provider id is one this provider can have issued. */
  parseProviderId(id: ProviderId): boolean;
}

export interface Inventory {
  /** Every row of the pool's inventory. */
  list(signal: AbortSignal): Promise<InventoryRow[]>;
}

export interface ProvisionerLogger {
  /** The seed's step-by-step lines: shown only when asked for. */
  debug?(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
