// `webddp devices`: the WebGPU adapters this runtime sees: Dawn in Node (the system's drivers, then
// SwiftShader where its driver is installed), or a headless browser's navigator.gpu.
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatAdapters, listAdapters, type AdapterReport } from '../gpu/adapters.ts';
import { HALF_FEATURES, HALF_TOGGLES, nodeGpu, SWIFTSHADER_ICD, toggledGpu } from '../gpu/device-node.ts';
import { runPage } from './browser.ts';
import { UsageError, type Command } from './command.ts';
import { parseFlags } from './flags.ts';

const usage = `webddp devices [--json]
webddp devices --runtime chromium [--browser PATH] [--browser-flags="..."] [--json]

The WebGPU adapters this runtime sees, each with its vendor, architecture, device and description,
whether it is a software (fallback) adapter, the requests that return it (high-performance,
low-power, fallback), its features (shader-f16, subgroup matrices and their f16 shapes, subgroups
and their sizes, timestamp-query, and all others) and the limits webddp raises (buffer sizes,
workgroup storage and invocations).
Node: Dawn on the system's Vulkan/Metal/D3D12 drivers (a hardware adapter is listed again with the
Dawn toggles ${HALF_TOGGLES.join(', ')} where they add shader-f16 or subgroup matrices: what an
fp16 run gets), then on SwiftShader where its driver
(${SWIFTSHADER_ICD}) is installed. Chromium: the browser's navigator.gpu, with
SwiftShader allowed (--browser-flags="--use-angle=vulkan --enable-features=Vulkan" adds flags;
--browser-flags="--enable-dawn-features=${HALF_TOGGLES.join(',')}" the half-precision toggles).
  --json  one JSON object: {runtime, adapters: [...]}`;

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
  return out;
}

export const command: Command = {
  name: 'devices',
  summary: 'list the WebGPU adapters this runtime sees (features, limits, software or not)',
  usage,
  async run(argv, io, env) {
    const { values } = parseFlags(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        options: {
          runtime: { type: 'string', default: 'node' },
          browser: { type: 'string' },
          'browser-flags': { type: 'string' },
          json: { type: 'boolean', default: false },
          help: { type: 'boolean', default: false },
        },
      }),
    );
    if (values.help) {
      io.out(`${usage}\n`);
      return 0;
    }
    let adapters: AdapterReport[];
    let runtime: string;
    if (values.runtime === 'chromium') {
      if (!env) throw new Error('--runtime chromium needs the bundled CLI (bin/webddp.mjs)');
      runtime = 'chromium';
      const { result: r } = await runPage<{ adapters: AdapterReport[] }>(
        env,
        'check.html?devices=1',
        'webddpCheck',
        {
          allowSoftware: true,
          timeoutMs: 120_000,
          ...(values.browser ? { browser: values.browser } : {}),
          ...(values['browser-flags'] ? { flags: values['browser-flags'] } : {}),
        },
        io,
      );
      adapters = r.adapters;
    } else if (values.runtime === 'node') {
      if (values.browser !== undefined || values['browser-flags'] !== undefined)
        throw new UsageError('--browser and --browser-flags go with --runtime chromium');
      runtime = 'node-dawn';
      adapters = await nodeAdapters();
    } else throw new UsageError(`--runtime must be node or chromium (got '${values.runtime}')`);
    io.out(values.json ? `${JSON.stringify({ runtime, adapters })}\n` : `${formatAdapters(adapters, runtime)}\n`);
    return adapters.length > 0 ? 0 : 1;
  },
};
