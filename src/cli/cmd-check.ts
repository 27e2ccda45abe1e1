// `webddp check`: GPU regression testing of this build on this adapter (src/check): every kernel
// against the CPU reference, the model and a DDP run against PyTorch's fixtures, a short learning
// check and a throughput bench; a table, --json or --junit, and a throughput baseline. Node (Dawn)
// or a headless browser (--runtime chromium, check-chromium.ts). Exit 0 only when everything holds.
import { tuningOption } from './tuning-option.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { makeBaseline, parseBaseline, type Baseline } from '../check/baseline.ts';
import { formatReport, formatRow } from '../check/format.ts';
import { toJUnit } from '../check/junit.ts';
import { CHECK_GROUPS, type CheckGroup, type CheckReport } from '../check/result.ts';
import { runCheck } from '../check/run.ts';
import { KERNELS, type KernelName } from '../gpu/kernels.ts';
import { checkUsage } from './check-usage.ts';
import { runCheckInBrowser } from './check-chromium.ts';
import { UsageError, type Command } from './command.ts';
import { nodeCheckEnvironment } from './check-node.ts';
import { parseAdapter } from './device.ts';
import { parseFlags } from './flags.ts';
import { writeFileSafely } from '../checkpoint/write-file-node.ts';

function groupsFlag(v: string | undefined): CheckGroup[] {
  if (v === undefined) return [...CHECK_GROUPS];
  const gs = v
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  for (const g of gs)
    if (!(CHECK_GROUPS as readonly string[]).includes(g))
      throw new UsageError(`--only takes ${CHECK_GROUPS.join(', ')} (got '${g}')`);
  if (gs.length === 0) throw new UsageError(`--only needs a comma-separated list of ${CHECK_GROUPS.join(', ')}`);
  return gs as CheckGroup[];
}

/** "10", "10%" or "0.5%": a percentage >= 0. */
function slowdownFlag(v: string | undefined): number {
  if (v === undefined) return 0.1;
  const n = Number(v.trim().replace(/%$/, ''));
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n >= 100)
    throw new UsageError(`--max-slowdown must be a percentage in [0, 100) (got '${v}')`);
  return n / 100;
}

function readText(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`${flag}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Every DIR/<kernel>.wgsl, which must name a kernel of the registry. */
function shadersFlag(dir: string | undefined): Partial<Record<KernelName, string>> {
  if (dir === undefined) return {};
  let names: string[];
  try {
    names = readdirSync(dir).filter((f) => f.endsWith('.wgsl'));
  } catch (e) {
    throw new UsageError(`--shaders: cannot read ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (names.length === 0) throw new UsageError(`--shaders: ${dir} holds no .wgsl file`);
  const out: Partial<Record<KernelName, string>> = {};
  for (const f of names) {
    const k = f.slice(0, -5);
    if (!(k in KERNELS))
      throw new UsageError(`--shaders: ${join(dir, f)} names no kernel ('${k}' is not in src/gpu/kernels.ts)`);
    out[k as KernelName] = readText('--shaders', join(dir, f));
  }
  return out;
}

export const command: Command = {
  name: 'check',
  summary: 'GPU regression test of this build on this adapter: kernels, PyTorch parity, DDP, learning, speed',
  usage: checkUsage,
  async run(argv, io, env) {
    const { values } = parseFlags(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        options: {
          runtime: { type: 'string', default: 'node' },
          adapter: { type: 'string' },
          device: { type: 'string' },
          browser: { type: 'string' },
          'browser-flags': { type: 'string' },
          only: { type: 'string' },
          kernels: { type: 'string' },
          quick: { type: 'boolean', default: false },
          tuning: { type: 'string' },
          shaders: { type: 'string' },
          json: { type: 'boolean', default: false },
          junit: { type: 'string' },
          baseline: { type: 'string' },
          'max-slowdown': { type: 'string' },
          'save-baseline': { type: 'string' },
          help: { type: 'boolean', default: false },
        },
      }),
    );
    if (values.help) {
      io.out(`${checkUsage}\n`);
      return 0;
    }
    if (!env) throw new Error('webddp check needs the bundled CLI (bin/webddp.mjs)');
    const runtime = values.runtime;
    if (runtime !== 'node' && runtime !== 'chromium')
      throw new UsageError(`--runtime must be node or chromium (got '${runtime}')`);
    if (runtime === 'node' && (values.browser !== undefined || values['browser-flags'] !== undefined))
      throw new UsageError('--browser and --browser-flags go with --runtime chromium');
    if (runtime === 'chromium' && (values.shaders !== undefined || values.device !== undefined))
      throw new UsageError('--shaders and --device are for --runtime node');
    const adapter = parseAdapter(values.adapter);
    const groups = groupsFlag(values.only);
    const maxSlowdown = slowdownFlag(values['max-slowdown']);
    const baseline: Baseline | undefined = values.baseline
      ? (() => {
          try {
            return parseBaseline(readText('--baseline', values.baseline), values.baseline);
          } catch (e) {
            throw new UsageError(`--baseline: ${(e as Error).message}`);
          }
        })()
      : undefined;
    if ((baseline || values['save-baseline']) && !groups.includes('bench'))
      throw new UsageError('--baseline and --save-baseline compare throughput: include bench in --only');
    const kernels = values.kernels
      ?.split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const tuning = tuningOption(values.tuning);
    const common = {
      groups,
      quick: values.quick,
      ...(kernels ? { kernels } : {}),
      ...(tuning ? { tuning } : {}),
      ...(baseline ? { baseline, maxSlowdown } : {}),
    };
    const progress = !values.json;
    let report: CheckReport;
    if (runtime === 'chromium') {
      report = await runCheckInBrowser(env, io, {
        ...common,
        adapter,
        ...(values.browser ? { browser: values.browser } : {}),
        ...(values['browser-flags'] ? { flags: values['browser-flags'] } : {}),
      });
    } else {
      const shaders = shadersFlag(values.shaders);
      report = await runCheck(await nodeCheckEnvironment(env, io, adapter, values.device), {
        ...common,
        shaders,
        onGroup: (g) => io.err(`check: ${g} ...\n`),
        ...(progress
          ? { onRow: (r) => (r.status !== 'pass' || r.group !== 'kernels' ? io.err(`${formatRow(r)}\n`) : undefined) }
          : {}),
      });
    }
    if (values.junit) await writeFileSafely(values.junit, new TextEncoder().encode(toJUnit(report)));
    if (values['save-baseline']) {
      const b = makeBaseline(report.version, report.device.adapter, report.rows);
      await writeFileSafely(values['save-baseline'], new TextEncoder().encode(`${JSON.stringify(b, null, 2)}\n`));
    }
    io.out(values.json ? `${JSON.stringify(report)}\n` : `${formatReport(report)}\n`);
    return report.ok ? 0 : 1;
  },
};
