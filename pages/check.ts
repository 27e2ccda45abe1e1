// The check page (check.html): `webddp check` in this browser (src/check/run.ts): the device from
// navigator.gpu, ranks in module workers, the fixtures fetched from ./fixtures/. Options come from
// the address (?only=kernels,model&quick=1&kernels=conv&adapter=gpu&tuning=JSON); the report is
// shown and left in `window.webddpCheck` for headless runs (`webddp check --runtime chromium`).
// With ?devices=1 it lists the browser's adapters instead (`webddp devices --runtime chromium`).
import { formatReport, formatRow } from '../src/check/format.ts';
import { CHECK_GROUPS, type CheckGroup } from '../src/check/result.ts';
import { runCheck } from '../src/check/run.ts';
import { formatAdapters, listAdapters } from '../src/gpu/adapters.ts';
import { acquireDevice } from '../src/gpu/device.ts';
import { browserSpawner } from '../src/runtime/spawn-browser.ts';

declare global {
  interface Window {
    webddpCheck?: { done: boolean; result?: unknown; error?: string };
    /** Progress lines for a headless run to print (src/cli/browser.ts takes them away). */
    webddpProgress?: string[];
  }
}

const q = new URLSearchParams(location.search);
const show = (sel: string, t: string) => {
  const el = document.querySelector(sel);
  if (el) el.textContent = t;
};
const progress = (line: string) => (window.webddpProgress ??= []).push(line);
const list = (k: string) =>
  (q.get(k) ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

async function fixture(name: string): Promise<Uint8Array> {
  const r = await fetch(`./fixtures/${name}`);
  if (!r.ok) throw new Error(`fetching fixtures/${name}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
}

async function run(): Promise<unknown> {
  if (!('gpu' in navigator)) throw new Error('WebGPU is not available in this browser (navigator.gpu is missing)');
  if (q.get('devices') === '1') {
    const adapters = await listAdapters(navigator.gpu);
    show('#table', formatAdapters(adapters, 'chromium'));
    return { runtime: 'chromium', userAgent: navigator.userAgent, adapters };
  }
  const gpuOnly = q.get('adapter') === 'gpu';
  const groups = list('only').filter((g): g is CheckGroup => (CHECK_GROUPS as readonly string[]).includes(g));
  const kernels = list('kernels');
  const tuning = q.get('tuning');
  const report = await runCheck(
    {
      runtime: 'chromium',
      async acquire(label) {
        const g = await acquireDevice(navigator.gpu, {
          label,
          ...(gpuOnly ? { powerPreference: 'high-performance' } : {}),
        });
        if (gpuOnly && g.adapter.fallback) {
          g.destroy();
          throw new Error(
            `--adapter gpu: the browser gave a software adapter (${g.adapter.description || g.adapter.architecture}); check --browser-flags`,
          );
        }
        return g;
      },
      spawn: browserSpawner(),
      readFixture: fixture,
    },
    {
      groups,
      quick: q.get('quick') === '1',
      ...(kernels.length > 0 ? { kernels } : {}),
      ...(tuning ? { tuning } : {}),
      onGroup: (g) => {
        show('#status', `running: ${g}`);
        progress(`check: ${g} ...`);
      },
      onRow: (r) => {
        if (r.status !== 'pass' || r.group !== 'kernels') progress(formatRow(r));
      },
    },
  );
  show('#table', formatReport(report));
  return { ...report, userAgent: navigator.userAgent };
}

window.webddpCheck = { done: false };
run().then(
  (result) => {
    window.webddpCheck = { done: true, result };
    show('#status', 'done');
  },
  (e: unknown) => {
    const error = e instanceof Error ? e.message : String(e);
    window.webddpCheck = { done: true, error };
    show('#status', `error: ${error}`);
  },
);
