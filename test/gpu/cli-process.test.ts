// The `webddp` command as a process (bin/webddp.mjs over the dist-cli bundle this tier's global
// setup builds): a reader that closes the pipe early (`webddp ... | head`) ends it quietly with
// exit code 0, not with an unhandled EPIPE and a stack trace.
import { spawn } from 'node:child_process';
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
});
