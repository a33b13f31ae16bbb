/** One managed machine's properties as the inventory stores them (inventory.ts, inventory-pack.ts). */
export type MachineProps = {
  providerStatus?: string;
  address?: string;
  name?: string;
  createdAt: number;
  updatedAt: number;
  /** When fast delete counted this VM's failure toward the creation backoff (once per VM). */
  brokenAt?: number;
};
