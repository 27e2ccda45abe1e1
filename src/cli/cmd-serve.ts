// `webddp serve`: the teaching page the package ships (dist/: DP against DDP, ZeRO, the lessons)
// served on localhost by the CLI's own static server, so that an installed package needs no build
// tool to show it. Prints the URL on stdout and serves until Ctrl-C.
import { join } from 'node:path';
import { packageRoot, pagesDir } from './browser.ts';
import { UsageError } from './command.ts';
import { intFlag, str } from './flags.ts';
import { defineCommand } from './parser.ts';
import { serveStatic } from './static-server.ts';

export const command = defineCommand({
  name: 'serve',
  summary: 'serve the teaching page (DP against DDP, ZeRO, the lessons) on localhost and print its URL',
  synopsis: '[--port N] [--host HOST]',
  description:
    'Serves the pages this package ships (the teaching page, check.html, bench.html) with the headers\n' +
    'they need (cross-origin isolation) and prints the URL; open it in a browser with WebGPU (Chrome or\n' +
    'Edge 113 and later). Serves until Ctrl-C. In a checkout the pages are built first (vite build);\n' +
    '`npm start` runs the development server instead.',
  flags: [
    { flags: '--port <N>', help: 'the port (0: any free one)', default: 8080 },
    {
      flags: '--host <HOST>',
      help: 'the address to listen on (0.0.0.0 for every interface: the page then trains on whoever opens it)',
      default: 'localhost',
    },
  ],
  async run(values, _positionals, io, env) {
    if (!env) throw new Error('webddp serve needs the bundled CLI (bin/webddp.mjs)');
    const port = values.port === undefined ? 8080 : intFlag('--port', String(values.port), 0, 65535);
    const host = str(values.host) ?? 'localhost';
    if (host.trim() === '') throw new UsageError("--host must be an address (got '')");
    const root = packageRoot(env);
    const dist = await pagesDir(root, io);
    const site = await serveStatic(dist, join(root, 'fixtures'), port, host).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use: give another with --port (0: any)`);
      throw e;
    });
    io.out(`${site.origin}/\n`);
    io.err('serving the teaching page; Ctrl-C stops\n');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await site.close();
    return 0;
  },
});
