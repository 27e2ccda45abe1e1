// Fuzzing the importer and the safetensors reader with seeded mutations of valid files (bit
// flips, byte changes, truncations, insertions, deletions, tar header field edits, safetensors
// header token edits). For every case: a typed, specific error or a correct import (checked
// against an independent reading of the mutant); no descriptor left open on the source files;
// the directory store and an existing checkpoint file byte-identical after a rejection; heap
// growth bounded. A failure names its seed: rerun it alone with FUZZ_SEED=<seed> FUZZ_CASES=1.
// Bounded in time: each part stops at its time budget (and says how many cases it ran).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSafetensors, serializeSafetensors, SafetensorsError } from '../../src/checkpoint/safetensors.ts';
import { loadStateDict, saveStateDict } from '../../src/checkpoint/state-dict.ts';
import { openDataset } from '../../src/data/dataset.ts';
import { DataError } from '../../src/data/errors.ts';
import { importFromPath } from '../../src/data/import-node.ts';
import { FileDatasetStore } from '../../src/data/store-file-node.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { FixtureError, readFixture } from '../../src/parity/fixture.ts';
import { gzip, makeFiles, makeTar, readSplit } from '../helpers/cifar-fixture.ts';
import {
  archiveMutant,
  directoryMutant,
  expectedDirectoryImport,
  expectedImport,
  fullGc,
  heapBytes,
} from '../helpers/fuzz-cases.ts';

type Expected = NonNullable<Awaited<ReturnType<typeof expectedImport>>>;
import { fdsUnder, snapshot } from '../helpers/hostile.ts';
import { editSafetensorsHeader, mutateBytes, Prng } from '../helpers/mutate.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261203);
const CASES = process.env.FUZZ_CASES === undefined ? undefined : Number(process.env.FUZZ_CASES);
const ARCHIVE_BUDGET_MS = 30_000;
const ST_BUDGET_MS = 15_000;
/**
 * Memory bounds, over this thread's heap + ArrayBuffers: growth of what stays allocated after a
 * full GC, from case 250 on (checked every 250 cases, so a leak shows early), and the largest
 * growth over the start seen at a case end (garbage included: V8 collects lazily).
 */
const RETAINED_LIMIT = 32 * 2 ** 20;
const PEAK_LIMIT = 384 * 2 ** 20;

let root = '';
let src = '';
let storeDir = '';
let checkpoint = '';
let store: FileDatasetStore;

beforeAll(async () => {
  root = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'webddp-fuzz-'));
  src = join(root, 'src');
  storeDir = join(root, 'data');
  await mkdir(src);
  store = await FileDatasetStore.open(join(storeDir, 'store'));
  checkpoint = join(storeDir, 'checkpoints', 'model.safetensors');
  await mkdir(join(storeDir, 'checkpoints'));
  await writeFile(checkpoint, saveStateDict(simpleCnnSpec(0.125), new Float32Array(simpleCnnSpec(0.125).total)));
});
afterAll(async () => rm(root, { recursive: true, force: true }));

/** Runs `one(seed)` for consecutive seeds until the budget or the count; returns how many ran. */
async function fuzz(budgetMs: number, one: (seed: number) => Promise<void>): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  while (CASES === undefined ? performance.now() - t0 < budgetMs : n < CASES) {
    const seed = SEED + n;
    try {
      await one(seed);
    } catch (e) {
      throw new Error(
        `fuzz case seed ${seed} failed (rerun: FUZZ_SEED=${seed} FUZZ_CASES=1): ${(e as Error).message}`,
        { cause: e },
      );
    }
    n++;
  }
  return n;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer after ${ms} ms (a hang): ${what}`)), ms);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

describe('fuzz', { timeout: 120_000 }, () => {
  it('archive mutants: typed error or a correct import, no descriptor left, store unchanged', async () => {
    const files = makeFiles(2, 2, 7);
    const tar = await makeTar({ files });
    const gz = await gzip(tar);
    await importFromPath(await writeSource('base.tar.gz', gz), store, { recordsPerChunk: 3 });
    let before = snapshot(storeDir);
    fullGc();
    const base = heapBytes();
    let peak = 0;
    let retained = 0;
    let warm: number | undefined;
    let done = 0;
    const verdicts = new Map<string, number>();
    const n = await fuzz(ARCHIVE_BUDGET_MS, async (seed) => {
      const r0 = new Prng(seed);
      let m: { what: string; expect: () => Promise<Expected | undefined> };
      let path: string;
      if (r0.next() < 0.15) {
        const d = directoryMutant(r0, files);
        path = join(src, 'dir');
        await rm(path, { recursive: true, force: true });
        await mkdir(path);
        for (const [name, bytes] of d.files) await writeFile(join(path, name), bytes);
        m = { what: d.what, expect: async () => expectedDirectoryImport(d.files) };
      } else {
        const a = await archiveMutant(r0, tar, gz);
        path = await writeSource(a.file, a.bytes);
        m = { what: a.what, expect: () => expectedImport(a.bytes) };
      }
      const r = await withTimeout(
        importFromPath(path, store, { recordsPerChunk: 3 }).then(
          (ok) => ({ ok }),
          (e: unknown) => ({ e }),
        ),
        15_000,
        m.what,
      );
      if (process.env.FUZZ_DEBUG) console.log(m.what, 'e' in r ? String(r.e) : 'imported');
      expect(fdsUnder(src), m.what).toEqual([]);
      if ('e' in r) {
        const e = r.e as Error;
        expect(
          e instanceof DataError && e.constructor !== DataError,
          `${m.what}: untyped ${e.name}: ${e.message}`,
        ).toBe(true);
        expect(e.message.length, m.what).toBeGreaterThan(20);
        expect(snapshot(storeDir), `${m.what}: store or checkpoint changed by ${e.name}`).toEqual(before);
        verdicts.set(e.name, (verdicts.get(e.name) ?? 0) + 1);
      } else {
        const want = await m.expect().catch(() => undefined);
        expect(want, `${m.what}: imported, but an independent reader finds no CIFAR archive`).toBeDefined();
        const ds = await openDataset(store, 'cifar10');
        expect(Buffer.from(await readSplit(ds, 'train')).equals(want?.train ?? new Uint8Array(1)), m.what).toBe(true);
        expect(Buffer.from(await readSplit(ds, 'test')).equals(want?.test ?? new Uint8Array(1)), m.what).toBe(true);
        expect(ds.manifest.classes, m.what).toEqual(want?.classes);
        before = snapshot(storeDir);
        verdicts.set('imported', (verdicts.get('imported') ?? 0) + 1);
      }
      peak = Math.max(peak, heapBytes() - base);
      if (++done % 250 === 0) {
        fullGc();
        warm ??= heapBytes(); // after the first 250 cases: compiled code and caches are in place
        retained = Math.max(retained, heapBytes() - warm);
        expect(retained, `heap retained between case 250 and case ${done}`).toBeLessThan(RETAINED_LIMIT);
      }
    });
    console.log(
      `fuzz archives: ${n} cases from seed ${SEED}; ${JSON.stringify(Object.fromEntries(verdicts))}; peak +${(peak / 2 ** 20).toFixed(1)} MiB, retained +${(retained / 2 ** 20).toFixed(1)} MiB`,
    );
    expect(peak).toBeLessThan(PEAK_LIMIT);
    expect(retained).toBeLessThan(RETAINED_LIMIT);
    if (CASES === undefined) expect(n).toBeGreaterThan(100); // thousands on an idle 2-core machine
  });

  it('safetensors mutants: SafetensorsError / FixtureError or a consistent read, checkpoint unchanged', async () => {
    const spec = simpleCnnSpec(0.125);
    const stateDict = saveStateDict(
      spec,
      Float32Array.from({ length: spec.total }, (_, i) => Math.sin(i)),
    );
    const fixture = serializeSafetensors(
      {
        'input.y': { dtype: 'I64', shape: [2], data: new BigInt64Array([1n, 9n]) },
        'out.loss': { dtype: 'F16', shape: [1], data: new Uint16Array([0x3c00]) },
      },
      { spec: '{"kind":"grad"}' },
    );
    const before = snapshot(storeDir);
    const counts = { rejected: 0, read: 0, loaded: 0 };
    const n = await fuzz(ST_BUDGET_MS, async (seed) => {
      const r = new Prng(seed);
      const file = r.next() < 0.7 ? stateDict : fixture;
      const headerEnd = 8 + Number(new DataView(file.buffer).getBigUint64(0, true));
      const m = r.next() < 0.6 ? editSafetensorsHeader(r, file) : mutateBytes(r, file, [0, headerEnd]);
      const path = await writeSource('m.safetensors', m.bytes);
      const bytes = new Uint8Array(await readFile(path));
      let st;
      try {
        st = parseSafetensors(bytes, path);
      } catch (e) {
        expect(e, `${m.what}: ${(e as Error).message}`).toBeInstanceOf(SafetensorsError);
        counts.rejected++;
      }
      if (st) {
        counts.read++;
        // Consistent: every tensor views its bytes, and writing it back reads back the same.
        const again = parseSafetensors(
          serializeSafetensors(
            Object.fromEntries([...st.tensors].map(([k, t]) => [k, { ...t, data: t.data.slice() }])),
            st.metadata,
          ),
        );
        expect([...again.tensors.keys()].sort(), m.what).toEqual([...st.tensors.keys()].sort());
        for (const [k, t] of st.tensors)
          expect(Buffer.from(t.data).equals(again.tensors.get(k)?.data ?? new Uint8Array(1)), `${m.what}: ${k}`).toBe(
            true,
          );
        for (const load of [() => loadStateDict(bytes, spec, path), () => readFixture(bytes, path)]) {
          try {
            load();
            counts.loaded++;
          } catch (e) {
            const typed = e instanceof SafetensorsError || e instanceof FixtureError;
            expect(typed, `${m.what}: untyped ${(e as Error).name}: ${(e as Error).message}`).toBe(true);
          }
        }
      }
      expect(fdsUnder(src), m.what).toEqual([]);
      expect(snapshot(storeDir), m.what).toEqual(before);
    });
    console.log(`fuzz safetensors: ${n} cases from seed ${SEED}; ${JSON.stringify(counts)}`);
    if (CASES === undefined) expect(n).toBeGreaterThan(200); // thousands on an idle 2-core machine
  });
});

/** Writes a mutant into the source directory (replacing the previous one). */
async function writeSource(name: string, bytes: Uint8Array): Promise<string> {
  const path = join(src, name);
  await writeFile(path, bytes);
  return path;
}
