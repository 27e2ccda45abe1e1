// Shard loads of W ranks sharing one worker (--colocate, "workers share one device"): each rank
// loads its DistributedSampler shard of a CIFAR-10-sized training split (50,000 records in the
// importer's default chunks, SHA-256 verified per chunk) at the start of every epoch, all W at
// once. Measured side by side in one run: every rank reading and verifying the chunks itself, and
// the ranks sharing their chunk reads (src/data/chunk-reads.ts). The real src/data code, bundled
// with vite at start; the store is a directory store in a temporary folder.
//
//   node bench/shard-load.mjs                  # W = 1, 2, 4; 3 rounds each
//   node bench/shard-load.mjs --json out.json  # also write the JSON to a file
/* global console, performance, process */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonFile = jsonAt >= 0 ? args[jsonAt + 1] : undefined;
const RECORDS = 50_000;
const ROUNDS = 3;

const work = mkdtempSync(join(tmpdir(), 'webddp-shard-bench-'));
try {
  await build({
    configFile: false,
    logLevel: 'silent',
    build: {
      lib: {
        entry: {
          data: join(import.meta.dirname, 'shard-load-entry.ts'),
        },
        formats: ['es'],
        fileName: (_f, name) => `${name}.mjs`,
      },
      outDir: join(work, 'bundle'),
      minify: false,
      rollupOptions: { external: [/^node:/] },
    },
  });
  const d = await loadData(pathToFileURL(join(work, 'bundle', 'data.mjs')).href);
  const store = await d.FileDatasetStore.open(join(work, 'store'));
  const records = new Uint8Array(RECORDS * d.RECORD_BYTES);
  for (let i = 0; i < records.length; i++) records[i] = (i * 2654435761) >>> 24;
  for (let r = 0; r < RECORDS; r++) records[r * d.RECORD_BYTES] = r % 10;
  await d.importFiles([d.bytesSource('data_batch_1.bin', records)], store, { name: 'bench' });
  const dataset = await d.openDataset(store, 'bench');
  const chunks = dataset.manifest.splits.train.chunks.length;

  const rows = [];
  for (const world of [1, 2, 4]) {
    const shards = Array.from({ length: world }, (_, rank) => {
      const s = new d.DistributedSampler(RECORDS, { numReplicas: world, rank, seed: 0 });
      s.setEpoch(1);
      return s.indices();
    });
    for (const mode of ['each rank reads', 'shared reads']) {
      const times = [];
      let storeReads = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const shared = mode === 'shared reads' ? new d.SharedChunkReads() : undefined;
        const t0 = performance.now();
        await Promise.all(shards.map((idx) => d.loadShard(dataset, 'train', idx, shared ? { shared } : {})));
        times.push(performance.now() - t0);
        storeReads = shared ? shared.storeReads : world * chunks;
      }
      times.sort((a, b) => a - b);
      rows.push({ world, mode, ms: times[Math.floor(ROUNDS / 2)] ?? Number.NaN, storeReads, chunks });
    }
  }
  console.log(`${RECORDS} records in ${chunks} chunks; median of ${ROUNDS} rounds; all W loads at once\n`);
  console.log('| W | chunk reads | chunks read from the store | ms (median) | vs each rank reading |');
  console.log('| ---: | --- | ---: | ---: | ---: |');
  for (const r of rows) {
    const base = rows.find((x) => x.world === r.world && x.mode === 'each rank reads');
    console.log(
      `| ${r.world} | ${r.mode} | ${r.storeReads} | ${r.ms.toFixed(0)} | ${((base?.ms ?? r.ms) / r.ms).toFixed(2)}x |`,
    );
  }
  const json = JSON.stringify({ records: RECORDS, chunks, rounds: ROUNDS, rows }, null, 2);
  if (jsonFile) writeFileSync(jsonFile, `${json}\n`);
  else console.log(`\n${json}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Imports the bundle of shard-load-entry.ts. @param {string} url @returns {Promise<typeof import('./shard-load-entry.ts')>} */
function loadData(url) {
  return import(url);
}
