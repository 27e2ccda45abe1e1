// The `webddp` command as a process (bin/webddp.mjs over the dist-cli bundle this tier's global
// setup builds): a reader that closes the pipe early (`webddp ... | head`) ends it quietly with
// exit code 0, not with an unhandled EPIPE and a stack trace; and its output is what it says:
// results on stdout once each, no Vulkan or display probing noise on stderr. Training runs killed
// with SIGKILL, SIGTERM or SIGINT leave whole checkpoints that resume exactly.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCheckpoint } from '../../src/checkpoint/checkpoint.ts';
import { readCheckpointDir } from '../../src/checkpoint/dir-node.ts';
import { jsonLines } from '../helpers/cli.ts';
import { Prng } from '../helpers/mutate.ts';

describe('webddp as a process', () => {
  it('stops quietly when the reader of its output goes away', async () => {
    // 4 million indices: about 30 MB of JSON, far more than a pipe holds.
    const child = spawn(
      process.execPath,
      ['bin/webddp.mjs', 'sampler', '--n', '4000000', '--replicas', '1', '--rank', '0', '--seed', '0', '--epoch', '0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let err = '';
    let first = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.once('data', (d: Buffer) => {
      first = d.toString().slice(0, 20);
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(first).toMatch(/^\[\d+,\d+/);
    expect(err).not.toMatch(/EPIPE|Error/);
    expect(code).toBe(0);
  });

  it('check streams one line per check on stdout, then a summary; stderr has only its progress', () => {
    // as a user starts it: no VK_ICD_FILENAMES (the adapter is found, or SwiftShader chosen, by
    // webddp) and no XDG_RUNTIME_DIR (a server or container session)
    const env = Object.fromEntries(
      Object.entries(process.env).filter(
        ([k]) => !['VK_ICD_FILENAMES', 'XDG_RUNTIME_DIR', 'WEBDDP_HARNESS'].includes(k),
      ),
    );
    const r = spawnSync(process.execPath, ['bin/webddp.mjs', 'check', '--only', 'kernels', '--kernels', 'scale'], {
      encoding: 'utf8',
      env,
    });
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(
      lines.slice(0, -1).every((l) => /^ok {4}kernels {2}\S/.test(l)),
      r.stdout,
    ).toBe(true);
    expect(new Set(lines).size).toBe(lines.length); // no row twice
    expect(lines.at(-1)).toMatch(new RegExp(`^check OK: ${lines.length - 1} passed, 0 failed, 0 skipped`));
    // On lavapipe (WEBDDP_ADAPTER=lavapipe) Dawn itself prints, from native code, that it lowered
    // two of the driver's limits; those two lines and nothing else are let through there.
    const dawnOnLavapipe = /^Warning: maxDynamic(Uniform|Storage)BuffersPerPipelineLayout artificially reduced .*\n/gm;
    const stderr = process.env.WEBDDP_ADAPTER === 'lavapipe' ? r.stderr.replace(dawnOnLavapipe, '') : r.stderr;
    expect(stderr).not.toMatch(/XDG_RUNTIME_DIR|vkCreateInstance|Warning/);
    expect(stderr).toMatch(/^adapter: .*\nhalf arithmetic: .*\ncheck: kernels \.\.\.\n$/);
  });
});

// Killed and signalled training runs (1 worker, synthetic data, batches of 2, a checkpoint every
// step), all at once: three killed with SIGKILL at seeded moments, one sent SIGTERM and one SIGINT.
// Every checkpoint a killed run leaves is whole; the newest, resumed into the same directory (its
// stale lock and leftovers cleared), ends byte for byte where an uninterrupted run ends; the
// signalled runs write a checkpoint and exit 143 and 130.
describe('webddp train killed or signalled', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webddp-kill-'));
  const base = ['bin/webddp.mjs', 'train', '--workers', '1', '--train-limit', '16', '--test-limit', '4'];
  const args = [...base, '--batch-size', '2', '--store', join(dir, 'store'), '--json', '--log-every', '1'];

  /** Runs train with `extra`, sending `signal.sig` `delayMs` after the `count`-th line of type `after`. */
  function run(
    extra: string[],
    signal?: { after: 'step' | 'checkpoint'; count: number; delayMs: number; sig: NodeJS.Signals },
  ) {
    const child = spawn(process.execPath, [...args, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let sentAt = 0;
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (signal && !sentAt && out.split(`"type":"${signal.after}"`).length > signal.count) {
        sentAt = performance.now();
        setTimeout(() => child.kill(signal.sig), signal.delayMs);
      }
    });
    return new Promise<{ code: number | null; sig: NodeJS.Signals | null; out: string; err: string; ms: number }>(
      (resolve) => child.on('close', (code, sig) => resolve({ code, sig, out, err, ms: performance.now() - sentAt })),
    );
  }

  it('every checkpoint a kill -9 leaves resumes to the uninterrupted bytes; SIGTERM and SIGINT checkpoint and exit 143 and 130', async () => {
    // the store first, so that the runs below do not import it at once
    expect((await run(['--max-steps', '1'])).code).toBe(0);
    const r = new Prng(26);
    const trials = [0, 1, 2].map((i) => ({ ck: join(dir, `ck${i}`), count: 1 + r.int(5), delayMs: r.int(40) }));
    const ref = join(dir, 'ref.safetensors');
    const [full, term, int, ...killed] = await Promise.all([
      run(['--save', ref]),
      run(['--checkpoint-dir', join(dir, 'term')], { after: 'step', count: 1, delayMs: 0, sig: 'SIGTERM' }),
      run(['--checkpoint-dir', join(dir, 'int')], { after: 'step', count: 1, delayMs: 0, sig: 'SIGINT' }),
      ...trials.map((t) =>
        run(['--checkpoint-dir', t.ck, '--checkpoint-every', '1', '--keep', '2'], {
          after: 'checkpoint',
          count: t.count,
          delayMs: t.delayMs,
          sig: 'SIGKILL',
        }),
      ),
    ]);
    expect(full.code, full.err).toBe(0);
    for (const [res, code] of [
      [term, 143],
      [int, 130],
    ] as const) {
      expect(res.code, res.err).toBe(code);
      expect(jsonLines(res.out, 'checkpoint').length).toBeGreaterThanOrEqual(1);
      console.log(`exit ${code}: ${res.ms.toFixed(0)} ms after the signal`);
    }
    for (const [i, k] of killed.entries()) {
      expect(k.sig, `trial ${i}: ${k.err}`).toBe('SIGKILL');
      const t = trials[i]!;
      const steps = readdirSync(t.ck).filter((n) => /^step-\d+$/.test(n));
      expect(steps.length, `trial ${i}: ${readdirSync(t.ck).join(' ')}`).toBeGreaterThanOrEqual(1);
      for (const s of steps) await readCheckpoint(await readCheckpointDir(join(t.ck, s)), join(t.ck, s));
    }
    // the newest checkpoint of the last trial, resumed into its own directory: the same bytes
    const last = trials[2]!;
    const out = join(dir, 'resumed.safetensors');
    const resumed = await run(['--resume-from', last.ck, '--checkpoint-dir', last.ck, '--save', out]);
    expect(resumed.code, resumed.err).toBe(0);
    expect(readdirSync(last.ck).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(Buffer.compare(readFileSync(out), readFileSync(ref))).toBe(0);
  }, 600_000);
});
