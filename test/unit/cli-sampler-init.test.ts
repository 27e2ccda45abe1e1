// `webddp sampler` and `webddp init` called in-process (command.run(argv, io)) with a capturing io:
// output equals the library (and so PyTorch), input errors are UsageErrors naming the flag (the
// dispatcher in src/cli/main.ts turns those into exit code 2, per src/cli/command.ts), and the
// written safetensors file has the state_dict names, shapes and values.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { getF32, parseSafetensors } from '../../src/checkpoint/safetensors.ts';
import { command as initCmd } from '../../src/cli/cmd-init.ts';
import { command as samplerCmd } from '../../src/cli/cmd-sampler.ts';
import { UsageError, type Command } from '../../src/cli/command.ts';
import { DistributedSampler } from '../../src/data/sampler.ts';
import { initSimpleCnn } from '../../src/nn/init.ts';
import { simpleCnnSpec } from '../../src/nn/spec.ts';
import { fixture, pyListSha256 } from '../helpers/sampler-fixture.ts';

interface Result {
  code: number;
  out: string;
  err: string;
  error?: UsageError;
}

/** Runs a command like main.ts does: its return value, or 2 for a UsageError. */
async function run(cmd: Command, argv: string[]): Promise<Result> {
  let out = '';
  let err = '';
  const io = {
    out: (t: string) => {
      out += t;
    },
    err: (t: string) => {
      err += t;
    },
  };
  try {
    return { code: await cmd.run(argv, io), out, err };
  } catch (e) {
    if (e instanceof UsageError) return { code: 2, out, err, error: e };
    throw e;
  }
}

/** The first index whose float32 bit patterns differ (-1 when identical; -2 on a length mismatch). */
function firstBitMismatch(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -2;
  const x = new Uint32Array(a.buffer, a.byteOffset, a.length);
  const y = new Uint32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return i;
  return -1;
}

const shard = (
  n: number,
  numReplicas: number,
  rank: number,
  o: { seed?: number; epoch?: number; shuffle?: boolean; dropLast?: boolean } = {},
) => {
  const s = new DistributedSampler(n, {
    numReplicas,
    rank,
    shuffle: o.shuffle ?? true,
    seed: o.seed ?? 0,
    dropLast: o.dropLast ?? false,
  });
  s.setEpoch(o.epoch ?? 0);
  return Array.from(s.indices());
};

describe('webddp sampler', () => {
  it('prints the worked example (N=10, R=3, defaults) as one JSON line', async () => {
    for (const [rank, want] of [
      [0, [4, 5, 0, 2]],
      [1, [1, 3, 8, 4]],
      [2, [7, 9, 6, 1]],
    ] as const) {
      const r = await run(samplerCmd, ['--n', '10', '--replicas', '3', '--rank', String(rank)]);
      expect(r.code).toBe(0);
      expect(r.out).toBe(`${JSON.stringify(want)}\n`);
      expect(r.err).toBe('');
    }
  });

  it.each([
    [11, 4, 3, { seed: 42, epoch: 7 }],
    [11, 4, 1, { seed: 42, epoch: 1, dropLast: true }],
    [2, 5, 4, { shuffle: false }],
    [10, 3, 2, { shuffle: false, dropLast: true, epoch: 5 }],
    [1000, 7, 6, { seed: -1, epoch: 3 }],
  ] as const)('n=%i R=%i rank=%i %o equals DistributedSampler', async (n, R, rank, o) => {
    const argv = ['--n', String(n), '--replicas', String(R), '--rank', String(rank)];
    if ('seed' in o) argv.push(`--seed=${o.seed}`);
    if ('epoch' in o) argv.push('--epoch', String(o.epoch));
    if ('shuffle' in o && !o.shuffle) argv.push('--no-shuffle');
    if ('dropLast' in o && o.dropLast) argv.push('--drop-last');
    const r = await run(samplerCmd, argv);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual(shard(n, R, rank, o));
  });

  it('N=50000, R=4, rank 3, seed 42, epoch 1 matches sampler.json (torch 2.11)', async () => {
    const rec = fixture.sampler.find(
      (s) =>
        s.n === 50000 &&
        s.num_replicas === 4 &&
        s.rank === 3 &&
        s.shuffle &&
        !s.drop_last &&
        s.seed === 42 &&
        s.epoch === 1,
    );
    const r = await run(samplerCmd, ['--n', '50000', '--replicas', '4', '--rank', '3', '--seed', '42', '--epoch', '1']);
    const list = JSON.parse(r.out) as number[];
    expect(list.length).toBe(12500);
    expect(pyListSha256(list)).toBe(rec?.sha256);
  });

  it('--help prints the usage and exits 0 even without the required flags', async () => {
    const r = await run(samplerCmd, ['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('webddp sampler --n N --replicas R --rank r');
  });

  it.each([
    [['--n', '10', '--replicas', '4', '--rank', '4'], /--rank must be an integer in \[0, 3\] \(got '4'\)/],
    [['--n', '10', '--replicas', '4', '--rank=-1'], /--rank must be an integer in \[0, 3\] \(got '-1'\)/],
    [['--n', '10', '--replicas', '4', '--rank', '-1'], /--rank must be an integer in \[0, 3\] \(got '-1'\)/],
    [['--replicas', '4', '--rank', '0'], /--n is required/],
    [['--n', '10', '--rank', '0'], /--replicas is required/],
    [['--n', '10', '--replicas', '2'], /--rank is required/],
    [['--n', '1.5', '--replicas', '4', '--rank', '0'], /--n must be an integer in \[0, 2147483647\] \(got '1.5'\)/],
    [['--n', 'ten', '--replicas', '4', '--rank', '0'], /--n must be .* \(got 'ten'\)/],
    [['--n', '10', '--replicas', '0', '--rank', '0'], /--replicas must be an integer >= 1 \(got '0'\)/],
    [
      ['--n', '10', '--replicas', '2', '--rank', '0', '--seed', '0.5'],
      /--seed must be an integer in \[-2\^63, 2\^64\) \(got '0.5'\)/,
    ],
    [
      ['--n', '10', '--replicas', '2', '--rank', '0', '--seed', '18446744073709551616'],
      /--seed must be an integer in \[-2\^63, 2\^64\)/,
    ],
    [['--n', '10', '--replicas', '2', '--rank', '0', '--epoch', '1e3'], /--epoch must be an integer \(got '1e3'\)/],
    [
      ['--n', '10', '--replicas', '2', '--rank', '0', '--seed', '18446744073709551615', '--epoch', '1'],
      /--epoch 1 with --seed 18446744073709551615: .*outside/,
    ],
    [['--n', '10', '--replicas', '2', '--rank', '0', '--shuffle'], /unknown option '--shuffle'/],
    [['--n', '10', '--replicas', '2', '--rank'], /--rank/],
    [['10', '--replicas', '2', '--rank', '0'], /too many arguments for 'sampler'/],
  ])('%j exits 2 with a message naming the problem', async (argv, msg) => {
    const r = await run(samplerCmd, argv);
    expect(r.code).toBe(2);
    expect(r.error?.message).toMatch(msg);
    expect(r.out).toBe('');
  });
});

describe('webddp init', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webddp-init-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function readParams(file: string, width: number) {
    const st = parseSafetensors(new Uint8Array(readFileSync(file)), file);
    const spec = simpleCnnSpec(width);
    return { st, spec, names: [...st.tensors.keys()] };
  }

  it('writes torch.manual_seed(0); SimpleCNN() under state_dict names, equal to the 2.11 fixture', async () => {
    const file = join(dir, 'seed0.safetensors');
    const r = await run(initCmd, ['--seed', '0', '--out', file]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain('545,098 parameters');
    const { st, spec, names } = readParams(file, 1);
    expect(names).toEqual([
      'conv1.weight',
      'conv1.bias',
      'conv2.weight',
      'conv2.bias',
      'fc1.weight',
      'fc1.bias',
      'fc2.weight',
      'fc2.bias',
    ]);
    expect(st.metadata).toMatchObject({ format: 'pt', producer: 'webddp', seed: '0', width: '1' });
    const ref = parseSafetensors(
      new Uint8Array(readFileSync(new URL('../../fixtures/simplecnn_grad.safetensors', import.meta.url))),
    );
    const arena = initSimpleCnn(spec, 0);
    for (const p of spec.params) {
      const got = getF32(st, p.name, p.shape);
      expect(firstBitMismatch(got, arena.subarray(p.offset, p.offset + p.size)), p.name).toBe(-1);
      expect(firstBitMismatch(got, getF32(ref, `param.${p.name}`, p.shape)), `${p.name} vs param.${p.name}`).toBe(-1);
    }
    expect(readdirSync(dir)).toEqual(['seed0.safetensors']); // no temporary file left behind
  });

  it('--width 0.5 --seed 42 gives the narrow model, and replaces an existing file', async () => {
    const file = join(dir, 'w05.safetensors');
    writeFileSync(file, 'old contents');
    const r = await run(initCmd, ['--seed', '42', '--width', '0.5', '--out', file]);
    expect(r.code).toBe(0);
    const { st, spec } = readParams(file, 0.5);
    expect(st.tensors.get('conv2.weight')?.shape).toEqual([32, 16, 3, 3]);
    expect(st.tensors.get('fc1.weight')?.shape).toEqual([64, 2048]);
    expect(st.metadata).toMatchObject({ seed: '42', width: '0.5' });
    const arena = initSimpleCnn(spec, 42);
    for (const p of spec.params)
      expect(firstBitMismatch(getF32(st, p.name, p.shape), arena.subarray(p.offset, p.offset + p.size)), p.name).toBe(
        -1,
      );
  });

  it('accepts seeds beyond 2^53 (as bigint) and negative seeds', async () => {
    const file = join(dir, 'big.safetensors');
    expect((await run(initCmd, ['--seed', '18446744073709551615', '--width', '0.125', '--out', file])).code).toBe(0);
    const a = getF32(readParams(file, 0.125).st, 'fc2.weight');
    expect((await run(initCmd, ['--seed=-1', '--width', '0.125', '--out', file])).code).toBe(0);
    const b = getF32(readParams(file, 0.125).st, 'fc2.weight');
    expect(firstBitMismatch(a, b)).toBe(-1); // -1 is 2^64 - 1 in torch
  });

  it('--help prints the usage', async () => {
    const r = await run(initCmd, ['--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('webddp init --seed S');
  });

  it.each([
    [['--out', 'x.safetensors'], /--seed is required/],
    [['--seed', '0'], /--out is required/],
    [['--seed', 'abc', '--out', 'x'], /--seed must be an integer in \[-2\^63, 2\^64\) \(got 'abc'\)/],
    [['--seed', '0', '--width', '0', '--out', 'x'], /--width must be a number in \[0.125, 16\] \(got '0'\)/],
    [['--seed', '0', '--width', 'wide', '--out', 'x'], /--width must be a number .* \(got 'wide'\)/],
    [['--seed', '0', '--out', ''], /--out must be a file path/],
    [['--seed', '0', '--out', 'x', '--force'], /unknown option '--force'/],
  ])('%j exits 2 with a message naming the flag', async (argv, msg) => {
    const r = await run(initCmd, argv);
    expect(r.code).toBe(2);
    expect(r.error?.message).toMatch(msg);
  });

  it('an unwritable destination is an I/O error (exit 1 in main), not a usage error', async () => {
    await expect(run(initCmd, ['--seed', '0', '--out', join(dir, 'missing-dir', 'x.safetensors')])).rejects.toThrow(
      /ENOENT/,
    );
  });
});
