// Node only: the built pages (dist/) served on localhost, for the headless browser runtime and for
// `webddp serve`, with the cross-origin isolation headers the pages need (as vite.config.ts's:
// SharedArrayBuffer for the workers' shared-memory links, precise timers), and /fixtures/ mapped to
// the package's fixtures folder. A plain node:http server: no build tool at run time.
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
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
  '.wgsl': 'text/plain; charset=utf-8',
  '.safetensors': 'application/octet-stream',
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

/**
 * Serves `dist` at / and `fixtures` at /fixtures/ on `host` (localhost by default) at `port` (an
 * ephemeral one by default).
 */
export async function serveStatic(dist: string, fixtures: string, port = 0, host = 'localhost'): Promise<StaticSite> {
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
    server.listen(port, host, resolve);
  });
  const address = server.address() as AddressInfo;
  const name = address.family === 'IPv6' && host !== 'localhost' ? `[${address.address}]` : host;
  return {
    origin: `http://${name}:${address.port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
