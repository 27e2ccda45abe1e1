// Where webddp writes (src/input/path-node.ts, write-file-node.ts, dir-lock-node.ts), against
// generated hostile targets: every output-file write aimed at a device, FIFO, socket, directory,
// a symbolic link to one of them, a path under /proc, /sys or /dev, or an empty path is refused
// naming it and leaves the target as it was; a directory under /proc is refused in well under a
// second; a second writer of one checkpoint directory is refused naming the holder, a stale lock
// (its process gone) is taken over and what a killed run left is removed and reported.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeFileSafely } from '../../src/checkpoint/write-file-node.ts';
import { lockCheckpointDir } from '../../src/checkpoint/dir-lock-node.ts';
import { main } from '../../src/cli/main.ts';
import { checkOutputDirectory, ensureDirectory, kindOf } from '../../src/input/path-node.ts';
import { Prng } from '../helpers/mutate.ts';

const dir = mkdtempSync(join(tmpdir(), 'webddp-paths-'));
const kind = (p: string) => {
  let s;
  try {
    s = lstatSync(p);
  } catch {
    return 'absent';
  }
  return s ? (s.isSymbolicLink() ? 'link' : (kindOf(s) ?? 'file')) : 'absent';
};

/** A target of each hostile class, made for this trial. */
async function target(r: Prng, i: number): Promise<{ what: string; path: string; close?: () => void }> {
  const p = join(dir, `t${i}`);
  switch (r.int(8)) {
    case 0:
      return { what: 'a device', path: r.pick(['/dev/null', '/dev/zero', '/dev/full', '/dev/random']) };
    case 1:
      execFileSync('mkfifo', [p]);
      return { what: 'a FIFO', path: p };
    case 2: {
      const server = createServer();
      await new Promise<void>((res) => server.listen(p, res));
      return { what: 'a socket', path: p, close: () => server.close() };
    }
    case 3:
      mkdirSync(p);
      return { what: 'a directory', path: p };
    case 4:
      symlinkSync(r.pick(['/dev/null', dir]), p);
      return { what: 'a link to a device or directory', path: p };
    case 5:
      return {
        what: 'the kernel',
        path: r.pick(['/proc/self/comm', '/sys/kernel/x', '/proc/webddp', '/dev/shm/../x']),
      };
    case 6:
      return { what: 'an empty path', path: '' };
    default:
      return { what: 'a file under a file', path: (writeFileSync(p, 'x'), join(p, 'out')) };
  }
}

describe('output files', () => {
  it('never replace a device, FIFO, socket or directory, never land in /proc, /sys or /dev: refused by name', async () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = new Prng(seed);
      const t = await target(r, seed);
      const before = t.path ? kind(t.path) : 'absent';
      const flag = r.pick(['--save', '--trace', '--out']);
      await expect(writeFileSafely(t.path, new Uint8Array([1, 2, 3]), flag), `seed ${seed}: ${t.what}`).rejects.toThrow(
        new RegExp(`^(${flag} |cannot write )`),
      );
      if (t.path) expect(kind(t.path), `seed ${seed}: ${t.what} ${t.path}`).toBe(before);
      t.close?.();
    }
    expect(readdirSync(dir).filter((n) => n.includes('.tmp-'))).toEqual([]);
  });

  it('a directory under /proc or /sys, or through a file, is refused at once (no recursive mkdir loop)', async () => {
    const r = new Prng(7);
    for (let i = 0; i < 20; i++) {
      const depth = 1 + r.int(6);
      const base = r.pick(['/proc', '/proc/self', '/sys', '/dev', join(dir, 'file-in-the-way')]);
      if (base.endsWith('file-in-the-way')) writeFileSync(base, 'x');
      const path = [base, ...Array.from({ length: depth }, (_, k) => `d${k}`)].join('/');
      const t0 = performance.now();
      await expect(ensureDirectory(path, '--store'), path).rejects.toThrow(/^--store /);
      expect(performance.now() - t0).toBeLessThan(500);
    }
  });
});

describe("every command's output flag", () => {
  /** `webddp ...argv`: its exit code and standard error. */
  async function webddp(...argv: string[]): Promise<{ code: number; err: string }> {
    let err = '';
    const code = await main(argv, { out: () => undefined, err: (t) => void (err += t) });
    return { code, err };
  }
  const fixture = new URL('../../fixtures/simplecnn_grad.safetensors', import.meta.url).pathname;
  const commands: ReadonlyArray<readonly [string, readonly string[], string]> = [
    ['init', ['--seed', '0'], '--out'],
    ['check', ['--only', 'bench'], '--junit'],
    ['check', ['--only', 'bench'], '--save-baseline'],
    ['parity', [fixture], '--out'],
    ['export-torchrun', [join(dir, 'no-checkpoint')], '--out'],
  ];

  it.each(commands)("%s %j %s '': refused by name before any work (exit 2)", async (cmd, args, flag) => {
    const r = await webddp(cmd, ...args, flag, '');
    expect(r.code, r.err).toBe(2);
    expect(r.err).toMatch(
      cmd === 'init' ? /--out must be a file path \(got ''\)/ : `${flag} '': is empty: give a path`,
    );
  });

  it('a device, FIFO, directory, a path under /proc or through a file: refused naming the flag, nothing replaced', async () => {
    for (let seed = 1; seed <= 15; seed++) {
      const r = new Prng(100 + seed);
      const t = await target(r, 100 + seed);
      if (t.path === '') continue; // the case above
      const [cmd, args, flag] = r.pick(commands.filter(([c]) => c !== 'export-torchrun'));
      const before = kind(t.path);
      const res = await webddp(cmd, ...args, flag, t.path);
      expect(res.code, `seed ${seed}: ${cmd} ${flag} ${t.what}: ${res.err}`).not.toBe(0);
      expect(res.err, `seed ${seed}: ${t.what}`).toContain(
        `webddp ${cmd}: ${res.code === 1 ? 'error: ' : ''}${flag} ${t.path}: `,
      );
      expect(kind(t.path), `seed ${seed}: ${t.what} ${t.path}`).toBe(before);
      t.close?.();
    }
  });

  it('export-torchrun --out: a file, a device, a path under /proc or through a file is refused by name; creates nothing', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const fifo = join(dir, 'a-fifo');
    execFileSync('mkfifo', [fifo]);
    const cases: ReadonlyArray<readonly [string, RegExp]> = [
      [file, /is a regular file, not a directory/],
      [fifo, /is a FIFO \(named pipe\), not a directory/],
      ['/dev/null', /is under \/dev, the kernel's filesystem/],
      [join(file, 'project'), /a-file is a regular file, not a directory/],
      ['/proc/self/project', /is under \/proc, the kernel's filesystem/],
      ['/sys/project/deeper', /is under \/sys/],
    ];
    for (const [path, why] of cases) {
      await expect(checkOutputDirectory(path, '--out'), path).rejects.toThrow(`--out ${path}: `);
      await expect(checkOutputDirectory(path, '--out'), path).rejects.toThrow(why);
      const res = await webddp('export-torchrun', join(dir, 'no-checkpoint'), '--out', path);
      expect(res.code, res.err).toBe(2);
      expect(res.err).toContain(`webddp export-torchrun: --out ${path}: `);
    }
    const fresh = join(dir, 'new', 'project');
    await expect(checkOutputDirectory(fresh, '--out')).resolves.toBe(fresh);
    expect(existsSync(join(dir, 'new'))).toBe(false);
  });
});

describe('one run per checkpoint directory', () => {
  it('a second writer is refused naming the holder; a dead holder is stale; leftovers are removed and reported', async () => {
    const root = join(dir, 'ck');
    const lock = await lockCheckpointDir(root);
    await expect(lockCheckpointDir(root)).rejects.toThrow(
      new RegExp(`--checkpoint-dir ${root}: is in use by process ${process.pid} on `),
    );
    await lock.release();
    // a process that has ended: its pid is free
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    writeFileSync(
      join(root, '.lock'),
      JSON.stringify({ pid: Number(dead), host: (await import('node:os')).hostname() }),
    );
    mkdirSync(join(root, '.step-12.tmp-999-1'));
    mkdirSync(join(root, '.step-3.old-999-2'));
    mkdirSync(join(root, 'step-4'));
    const again = await lockCheckpointDir(root);
    expect([...again.removed].sort()).toEqual(['.step-12.tmp-999-1', '.step-3.old-999-2']);
    expect(readdirSync(root).sort()).toEqual(['.lock', 'step-4']);
    await again.release();
    expect(readdirSync(root)).toEqual(['step-4']);
  });
});
