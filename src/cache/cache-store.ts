/**
 * Where one scale set's instance cache is stored: its partition of the `instances` table, a
 * `~meta` row (refresh bookkeeping, the claim, the generation) and a few `~pack-NNN` rows
 * holding every cached VM packed (pack.ts). Reading it is one query of the partition. Writing
 * the instances is one batch: the meta row under the ETag it was read or claimed with, and the
 * pack rows with it, so readers see either the old list or the new one, and a writer whose
 * meta row moved on (a claim lost, a mark in between) writes nothing.
 *
 * Migration: a partition of the old format (one row per VM, no `packs` on the meta row) is read
 * once as it is, which makes the plan list (refresh-plan.ts, 'old format'); the listing writes
 * the packs and deletes the old rows (ETag-guarded, in batches of 100).
 */
import type { EntityTable, Row } from '../state/entity-table.js';
import { submitBatch, type BatchOp } from '../state/batch.js';
import { failedOperationOf } from '../state/errors.js';
import { newGeneration } from '../state/generation.js';
import type { CachedInstance } from './instance.js';
import { isPackRowKey, packRowKey, PackMismatchError, recordsOf, rowsOfList, unpackList, type PackedList } from './pack.js';
import { instanceFromRow, type InstanceProps } from './rows.js';

export const META = '~meta';

/** The meta row of a scale set's cache partition. */
export type MetaProps = {
  /** Epoch ms; absent = never refreshed. */
  lastRefresh?: number;
  periodMs: number;
  jitterSec: number;
  orchestrationMode?: string;
  capacity?: number;
  claimedBy?: string;
  claimUntil?: number;
  lastError?: string;
  throttledUntil?: number;
  slowdown?: string;
  refreshes?: number;
  /** Changed by every write to the partition's rows (pool/generation.ts). */
  generation?: number;
  /** The scale set as last read from ARM (JSON of `ScaleSetInfo`) and when: shared by every instance. */
  scaleSet?: string;
  scaleSetReadAt?: number;
  /** When the last successful listing began (epoch ms): a row marked before it was listed after. */
  listedAt?: number;
  /**
   * VMs of the last listing whose resource id could not be parsed: not cached, but present in
   * ARM's capacity, so they count towards it (else every pass would see drift and list again).
   */
  unparseable?: number;
  /** How many pack rows hold the instances, and the id every one of them carries (cache-store.ts); absent in the old format. */
  packs?: number;
  packId?: number;
};

export interface StoredCache {
  /** Undefined: nothing stored yet. */
  meta: Row<MetaProps> | undefined;
  instances: CachedInstance[];
  /** The instances as their packs hold them; absent in the old format and when nothing is stored. */
  packed?: PackedList;
  /** Every other row of the partition (packs, old per-VM rows), with its ETag: what a write of the instances replaces. */
  rows: Row[];
}

export interface CacheStore {
  load(): Promise<StoredCache>;
  readMeta(): Promise<Row<MetaProps> | undefined>;
  /** Writes the meta row under `meta`'s ETag (inserts it when there is none); undefined when someone wrote it first. */
  writeMeta(meta: Row<MetaProps> | undefined, props: MetaProps): Promise<Row<MetaProps> | undefined>;
  /** Writes the meta row and the instances (packed) in one batch under `meta`'s ETag, replacing `stored`; undefined when the meta row moved on. */
  writeInstances(meta: Row<MetaProps>, props: MetaProps, instances: PackedList, stored: StoredCache): Promise<Row<MetaProps> | undefined>;
  /** Read-modify-write of the meta row (`undefined` from `mutate`: leave it). */
  updateMeta(mutate: (row: Row<MetaProps> | undefined) => MetaProps | undefined): Promise<void>;
}

const LOAD_ATTEMPTS = 3;

export function tableCacheStore(table: EntityTable, key: string): CacheStore {
  return {
    async load() {
      for (let attempt = 1; ; attempt++) {
        try {
          return readPartition(await table.list(key));
        } catch (err) {
          // A pack of another write than the meta row's: the read raced a writer; read again.
          if (!(err instanceof PackMismatchError) || attempt >= LOAD_ATTEMPTS) throw err;
        }
      }
    },
    readMeta: () => table.get<MetaProps>(key, META),
    writeMeta: (meta, props) => (meta?.etag ? table.replaceIf(meta, props) : table.create(key, META, props)),
    async writeInstances(meta, props, instances, stored) {
      const packId = newGeneration();
      const packs = rowsOfList(instances, packId);
      const next: MetaProps = { ...props, packs: packs.length, packId };
      const keep = new Set(packs.map((_, i) => packRowKey(i)));
      const replaced = stored.rows.filter((r) => !keep.has(r.rowKey));
      // Pack rows no longer needed go in the same batch; rows of the old format after it.
      const [stalePacks, oldRows] = [replaced.filter((r) => isPackRowKey(r.rowKey)), replaced.filter((r) => !isPackRowKey(r.rowKey))];
      const ops: BatchOp[] = [
        meta.etag ? { kind: 'replace', rowKey: META, etag: meta.etag, props: next } : { kind: 'insert', rowKey: META, props: next },
        ...packs.map((p, i): BatchOp => ({ kind: 'upsert', rowKey: packRowKey(i), props: p })),
        ...stalePacks.map((r): BatchOp => ({ kind: 'delete', rowKey: r.rowKey, etag: r.etag })),
      ];
      let etag: string | undefined;
      try {
        etag = (await submitBatch(table.client, key, ops))[0]?.etag;
      } catch (err) {
        if (failedOperationOf(err)?.rowKey === META) return undefined;
        throw err;
      }
      // ETag-guarded: an old row rewritten since it was read stays.
      if (oldRows.length > 0) await table.writeChanged(key, [], oldRows, { deleteMissing: true });
      return { partitionKey: key, rowKey: META, etag: etag ?? '', props: next };
    },
    async updateMeta(mutate) {
      await table.update<MetaProps>(key, META, mutate);
    },
  };
}

/** A store that reads but writes nothing (a dry run): writes answer as if they had happened. */
export function readOnlyCacheStore(store: CacheStore): CacheStore {
  return {
    load: () => store.load(),
    readMeta: () => store.readMeta(),
    writeMeta: async (meta, props) => ({ partitionKey: meta?.partitionKey ?? '', rowKey: META, etag: meta?.etag ?? '', props }),
    writeInstances: async (meta, props) => ({ ...meta, props }),
    updateMeta: async () => undefined,
  };
}

function readPartition(all: Row[]): StoredCache {
  const meta = all.find((r) => r.rowKey === META) as Row<MetaProps> | undefined;
  const rows = all.filter((r) => r.rowKey !== META);
  const { packs, packId } = meta?.props ?? {};
  if (packs === undefined || packId === undefined) {
    // The old format (or nothing): one row per VM, read this once; the next listing packs it.
    return { meta, rows, instances: (rows as Row<InstanceProps>[]).filter((r) => !isPackRowKey(r.rowKey)).map(instanceFromRow) };
  }
  // Pack rows past the count are a larger write's left behind (a meta row lost): not this list's.
  const end = packRowKey(packs);
  const packed = unpackList(rows.filter((r) => isPackRowKey(r.rowKey) && r.rowKey < end), packId, packs);
  return { meta, rows, instances: recordsOf<CachedInstance>(packed, 'id'), packed };
}
