// Node only: `webddp bench --runtime chromium`: opens bench.html in a headless browser (browser.ts:
// an installed Chromium or Chrome through puppeteer-core, the package's built pages served on
// localhost; SwiftShader allowed where there is no GPU) and prints what the page measured.
import type { BrowserOptions } from './browser.ts';
import { runPage } from './browser.ts';
import type { CliEnv, CliIO } from './command.ts';

export async function runChromiumBench(
  query: string,
  io: CliIO,
  env: CliEnv,
  json: boolean,
  browser: Omit<BrowserOptions, 'timeoutMs'>,
  timeoutMs: number,
): Promise<number> {
  io.err(`running bench.html?${query} in headless Chromium ...\n`);
  const { result, table } = await runPage<unknown>(
    env,
    `bench.html?${query}`,
    'webddpBench',
    { ...browser, timeoutMs },
    io,
  );
  io.out(json ? `${JSON.stringify(result)}\n` : `${table}\n`);
  return 0;
}
