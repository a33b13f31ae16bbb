/** A VM chosen for an action (a delete, a start, a deallocate), with its row as read. */
import type { CachedInstance } from '../cache/instance.js';
import type { Row } from '../state/entity-table.js';
import type { MachineProps } from './inventory.js';

export interface Deletion {
  id: string;
  name: string;
  /** The row as read (undefined: the broken VM had no row yet; one is created, marked failed). */
  row: Row<MachineProps> | undefined;
  errorInfo: CachedInstance['errorInfo'];
}
