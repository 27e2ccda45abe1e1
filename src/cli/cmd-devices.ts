// `webddp devices`: the WebGPU adapters this runtime sees: Dawn in Node (the system's drivers, then
// SwiftShader where its driver is installed, then lavapipe where it is found), or a headless browser's
// navigator.gpu.
import { existsSync } from 'node:fs';
import { formatAdapters, listAdapters, type AdapterReport } from '../gpu/adapters.ts';
import { HALF_FEATURES, HALF_TOGGLES, nodeGpu, SWIFTSHADER_ICD, toggledGpu } from '../gpu/device-node.ts';
import { runPage } from './browser.ts';
import { UsageError } from './command.ts';
import { BROWSER_FLAG, BROWSER_FLAGS_FLAG, RUNTIME_FLAG } from './common-flags.ts';
import { str } from './flags.ts';
import { defineCommand } from './parser.ts';

async function nodeAdapters(): Promise<AdapterReport[]> {
  const out: AdapterReport[] = [];
  // The system's drivers first: choosing SwiftShader sets VK_ICD_FILENAMES for this process.
  const system = await nodeGpu('gpu').catch(() => null);
  if (system) {
    const plain = await listAdapters(system.gpu);
    out.push(...plain);
    // The same adapters with the half-precision toggles, where they add features.
    const toggled = await listAdapters(await toggledGpu(), HALF_TOGGLES);
    for (const t of toggled) {
      const p = plain.find((a) => a.description === t.description && a.device === t.device);
      const count = (a: AdapterReport) => HALF_FEATURES.filter((f) => a.features.includes(f)).length;
      if (!t.fallback && (!p || count(t) > count(p))) out.push(t);
    }
  }
  if (existsSync(SWIFTSHADER_ICD) && !out.some((a) => a.fallback)) {
    const { gpu } = await nodeGpu('swiftshader');
    out.push(...(await listAdapters(gpu)));
  }
  // lavapipe where it is found (--adapter lavapipe), unless the system's drivers listed it already
  const lavapipe = await nodeGpu('lavapipe').catch(() => null);
  if (lavapipe)
    for (const a of await listAdapters(lavapipe.gpu))
      if (!out.some((o) => o.description === a.description)) out.push(a);
  return out;
}

export const command = defineCommand({
  name: 'devices',
  summary: 'list the WebGPU adapters this runtime sees (features, limits, software or not)',
  synopsis: '[--json]\n--runtime chromium [--browser PATH] [--browser-flags="..."] [--json]',
  description:
    'The WebGPU adapters this runtime sees, each with its vendor, architecture, device and description,\n' +
    'whether it is a software (fallback) adapter, the requests that return it (high-performance,\n' +
    'low-power, fallback), its features (shader-f16, subgroup matrices and their f16 shapes, subgroups\n' +
    'and their sizes, timestamp-query, and all others) and the limits webddp raises (buffer sizes,\n' +
    'workgroup storage and invocations).\n' +
    "Node: Dawn on the system's Vulkan/Metal/D3D12 drivers (a hardware adapter is listed again with the\n" +
    `Dawn toggles ${HALF_TOGGLES.join(', ')} where they add shader-f16 or subgroup matrices: what an\n` +
    `fp16 run gets), then on SwiftShader where its driver (${SWIFTSHADER_ICD}) is installed, then on\n` +
    "Mesa's lavapipe where it is found (--adapter lavapipe: WEBDDP_LAVAPIPE_ICD, .lavapipe/ of the checkout,\n" +
    "the system's lvp_icd.json).\n" +
    'Chromium: the browser\'s navigator.gpu, with SwiftShader allowed (--browser-flags="--enable-dawn-features=' +
    `${HALF_TOGGLES.join(',')}" adds the half-precision toggles).`,
  flags: [
    RUNTIME_FLAG,
    BROWSER_FLAG,
    BROWSER_FLAGS_FLAG,
    { flags: '--json', help: 'one JSON object: {runtime, adapters: [...]}' },
  ],
  async run(values, _positionals, io, env) {
    const runtime = str(values.runtime) ?? 'node';
    const browser = str(values.browser);
    const browserFlags = str(values['browser-flags']);
    let adapters: AdapterReport[];
    if (runtime === 'chromium') {
      if (!env) throw new Error('--runtime chromium needs the bundled CLI (bin/webddp.mjs)');
      const { result: r } = await runPage<{ adapters: AdapterReport[] }>(
        env,
        'check.html?devices=1',
        'webddpCheck',
        {
          allowSoftware: true,
          timeoutMs: 120_000,
          ...(browser ? { browser } : {}),
          ...(browserFlags ? { flags: browserFlags } : {}),
        },
        io,
      );
      adapters = r.adapters;
    } else {
      if (browser !== undefined || browserFlags !== undefined)
        throw new UsageError('--browser and --browser-flags go with --runtime chromium');
      adapters = await nodeAdapters();
    }
    const name = runtime === 'chromium' ? 'chromium' : 'node-dawn';
    io.out(values.json ? `${JSON.stringify({ runtime: name, adapters })}\n` : `${formatAdapters(adapters, name)}\n`);
    return adapters.length > 0 ? 0 : 1;
  },
});
