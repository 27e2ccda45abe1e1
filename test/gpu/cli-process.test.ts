// The `webddp` command as a process (bin/webddp.mjs over the dist-cli bundle this tier's global
// setup builds): a reader that closes the pipe early (`webddp ... | head`) ends it quietly with
// exit code 0, not with an unhandled EPIPE and a stack trace; and its output is what it says:
// results on stdout once each, no Vulkan or display probing noise on stderr.
import { spawn, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

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
    expect(r.stderr).not.toMatch(/XDG_RUNTIME_DIR|vkCreateInstance|Warning/);
    expect(r.stderr).toMatch(/^adapter: .*\ncheck: kernels \.\.\.\n$/);
  });
});
