/**
 * The `targets` table (partition = target name, one `status` row). Two writers share a row: the
 * target's reconcile (under its lease) and the async probe (which only records whether the
 * activator answered). Both write through an ETag-guarded merge of the fields they own.
 *
 * A reconcile's writes are fenced as well: they carry the revision the reconcile read and
 * bump it, and are refused (`TargetRecordChangedError`) when another reconcile wrote the row
 * in between, so a holder whose lease ran out never overwrites a newer decision. The probe's
 * merge does not bump the revision: it never makes a reconcile's write fail. `drover pause` does
 * bump it: a reconcile that read the row before the pause confirms the revision under its lease
 * just before it writes a scale (`FencedTargetRow.confirm`), and so writes none.
 */
import { redact } from '../../redact.js';
import { sameProps, type EntityTable, type Row } from '../../state/entity-table.js';
import { applyRecordPatch, type TargetRecord, type TargetRecordPatch } from './target-record.js';
import { capText } from '../../text/cap.js';
import type { ConfigId } from '../../config/sequence.js';
import { stampProps } from '../../job/config-stamp.js';

const ROW = 'status';

export type { TargetRecordPatch } from './target-record.js';

export class TargetRecordChangedError extends Error {
  override name = 'TargetRecordChangedError';
  constructor(
    readonly target: string,
    readonly expected: number,
    readonly found: number,
  ) {
    super(`target ${target}: its row was written by another reconcile or drover pause (revision ${found}, read ${expected}); nothing written`);
  }
}

export async function readTargetRecord(table: EntityTable, target: string): Promise<TargetRecord | undefined> {
  return (await table.get<TargetRecord>(target, ROW))?.props;
}

/**
 * Merges `patch` (computed from the current row) into it, under the row's ETag, without
 * touching the revision: for writers that own fields no reconcile decides (the async probe).
 */
export async function mergeTargetRecord(
  table: EntityTable,
  target: string,
  patch: (current: TargetRecord | undefined) => TargetRecordPatch | undefined,
): Promise<void> {
  await table.update<TargetRecord>(target, ROW, (row) => {
    const changes = patch(row?.props);
    return changes === undefined ? undefined : redacted(applyRecordPatch(row?.props, changes));
  });
}

/**
 * `drover pause` and `drover resume`: merges `patch` under the row's ETag and bumps the revision,
 * so that a reconcile that read the row before it writes no scale planned on the old row (it
 * confirms the revision under its lease first; the command holds the same lease while it writes).
 */
export async function pauseTargetRecord(table: EntityTable, target: string, patch: TargetRecordPatch): Promise<void> {
  await table.update<TargetRecord>(target, ROW, (row) => ({ ...redacted(applyRecordPatch(row?.props, patch)), revision: (row?.props.revision ?? 0) + 1 }));
}

/**
 * A reconcile's write: only over revision `expected` (0 for a row not written by a reconcile
 * yet), which it bumps. Returns the new revision; throws TargetRecordChangedError when another
 * reconcile wrote the row since.
 */
export async function writeTargetRecord(
  table: EntityTable,
  target: string,
  expected: number,
  patch: (current: TargetRecord | undefined) => TargetRecordPatch,
): Promise<number> {
  return (await fencedUpdate(table, target, expected, patch)).revision;
}

/** `writeTargetRecord`, with the row as written (or as found, when the patch changed nothing). */
async function fencedUpdate(
  table: EntityTable,
  target: string,
  expected: number,
  patch: (current: TargetRecord | undefined) => TargetRecordPatch,
): Promise<{ row: Row<TargetRecord> | undefined; revision: number }> {
  const revision = expected + 1;
  const result = await table.update<TargetRecord>(target, ROW, (row) => {
    const found = row?.props.revision ?? 0;
    if (found !== expected) throw new TargetRecordChangedError(target, expected, found);
    const next = redacted(applyRecordPatch(row?.props, patch(row?.props)));
    // Nothing changed, nothing written: the revision stays.
    if (row && sameProps(row.props, next)) return undefined;
    return { ...next, revision };
  });
  return { row: result.row, revision: result.changed ? revision : expected };
}

/**
 * The status page shows lastError as is: a load or probe URL's token must not get there, and an
 * API server's 200 KiB error must not make the row too large to write.
 */
function redacted(record: TargetRecord): TargetRecord {
  const errors = record.sourceErrors === undefined ? {} : { sourceErrors: capText(redact(record.sourceErrors)) };
  return record.lastError === undefined ? { ...record, ...errors } : { ...record, ...errors, lastError: capText(redact(record.lastError)) };
}

/**
 * A target's row as one reconcile holds it: read once, then every write fenced on the revision
 * read (or on the one its own previous write left). A write that changes nothing sends nothing;
 * one that does goes over the row as read (its ETag), and only when another writer came in
 * between (the async probe's merge, or another reconcile) is the row read again and the
 * revision checked there.
 */
export class FencedTargetRow {
  private revision = 0;
  private row: Row<TargetRecord> | undefined;
  constructor(
    private readonly table: EntityTable,
    readonly target: string,
    /** Stamped on every write: the writing host's configuration (job/config-stamp.ts). */
    private readonly configuration?: ConfigId,
  ) {}

  async read(): Promise<TargetRecord | undefined> {
    this.row = await this.table.get<TargetRecord>(this.target, ROW);
    this.revision = this.row?.props.revision ?? 0;
    return this.row?.props;
  }

  /**
   * Reads the row again and throws TargetRecordChangedError when its revision is not the one this
   * reconcile holds (`drover pause`, or another reconcile, wrote it since). Called under the
   * pass's lease right before a scale write: whoever writes the row after this waits for the lease.
   */
  async confirm(): Promise<void> {
    const fresh = await this.table.get<TargetRecord>(this.target, ROW);
    const found = fresh?.props.revision ?? 0;
    if (found !== this.revision) throw new TargetRecordChangedError(this.target, this.revision, found);
    // The same revision: only the probe's merge came in between; later writes go over its ETag.
    this.row = fresh;
  }

  /** Writes `patch` over the row; `beforeWrite` runs first when there is something to write (the pass's lease). */
  async write(patch: (current: TargetRecord | undefined) => TargetRecordPatch, beforeWrite?: () => Promise<void>): Promise<void> {
    const { configuration } = this;
    const stamped = configuration === undefined ? patch : (current: TargetRecord | undefined) => ({ ...patch(current), ...stampProps(configuration) });
    const held = this.row;
    const next = redacted(applyRecordPatch(held?.props, stamped(held?.props)));
    if (held && sameProps(held.props, next)) return;
    await beforeWrite?.();
    const props = { ...next, revision: this.revision + 1 };
    const written = held ? await this.table.replaceIf(held, props) : await this.table.create(this.target, ROW, props);
    if (written) {
      this.row = written;
      this.revision = props.revision;
      return;
    }
    // Another writer came in between: the row read again, and the revision checked there.
    ({ row: this.row, revision: this.revision } = await fencedUpdate(this.table, this.target, this.revision, stamped));
  }
}
