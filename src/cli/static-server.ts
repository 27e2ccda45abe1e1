// Node only: the built pages (dist/) served on localhost for the headless browser runtime, with the
// cross-origin isolation headers the pages need (as vite.config.ts's: SharedArrayBuffer for the
// workers' shared-memory links, precise timers), and /fixtures/ mapped to the
// package's fixtures folder. A plain node:http server: no build tool at run time.
import { createReadStream, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.wgsl': 'text/plain; charset=utf-8',
};

export interface StaticSite {
  readonly origin: string;
  close(): Promise<void>;
}

/** The file under `root` that `urlPath` names, or null when it leaves root or is not a file. */
function resolveUnder(root: string, urlPath: string): string | null {
  const p = normalize(join(root, decodeURIComponent(urlPath)));
  if (p !== root && !p.startsWith(root.endsWith(sep) ? root : root + sep)) return null;
  try {
    return statSync(p).isFile() ? p : null;
  } catch {
    return null;
  }
}

/** Serves `dist` at / and `fixtures` at /fixtures/ on an ephemeral localhost port. */
export async function serveStatic(dist: string, fixtures: string): Promise<StaticSite> {
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const file = path.startsWith('/fixtures/')
      ? resolveUnder(fixtures, path.slice('/fixtures'.length))
      : resolveUnder(dist, path === '/' ? '/index.html' : path);
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`not found: ${path}\n`);
      return;
    }
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Embedder-Policy': 'require-corp',
      'Cache-Control': 'no-store',
    });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, 'localhost', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://localhost:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
