// Finding a Python with PyTorch (Debian's python3-torch, which `npm run setup` installs) for the
// tests that run exported PyTorch code; a missing one fails the test with what to install.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';

let found: string | null | undefined;

/** WEBDDP_PYTHON, python3 or /usr/bin/python3: the first that imports torch and numpy. */
export function torchPython(): string {
  if (found === undefined) {
    const candidates = [process.env.WEBDDP_PYTHON, 'python3', '/usr/bin/python3'].filter((p): p is string => !!p);
    found =
      candidates.find((p) => {
        try {
          execFileSync(p, ['-c', 'import torch, numpy'], { stdio: 'ignore', timeout: 60_000 });
          return true;
        } catch {
          return false;
        }
      }) ?? null;
  }
  if (!found)
    throw new Error(
      'no Python with PyTorch and numpy (tried WEBDDP_PYTHON, python3, /usr/bin/python3): run `npm run setup` ' +
        "(it installs Debian's python3-torch) or `sudo apt-get install python3-torch`, or set WEBDDP_PYTHON",
    );
  return found;
}

/** A TCP port free right now on 127.0.0.1 (for torchrun's rendezvous). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (typeof a === 'object' && a ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}
