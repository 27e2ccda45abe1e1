// `webddp check`: GPU regression testing of this build on this adapter (src/check): every kernel
// against the CPU reference, the model and a DDP run against PyTorch's fixtures, a short learning
// check and a throughput bench; one line per check as it is decided and a summary, --json or --junit, and a throughput baseline. Node (Dawn)
// or a headless browser (--runtime chromium, check-chromium.ts). Exit 0 only when everything holds.
import { tuningOption } from './tuning-option.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeBaseline, parseBaseline, type Baseline } from '../check/baseline.ts';
import { formatRow, formatSummary } from '../check/format.ts';
import { toJUnit } from '../check/junit.ts';
import { CHECK_GROUPS, type CheckGroup, type CheckReport, type CheckRow } from '../check/result.ts';
import { runCheck } from '../check/run.ts';
import { KERNELS, type KernelName } from '../gpu/kernels.ts';
import { runCheckInBrowser } from './check-chromium.ts';
import { UsageError } from './command.ts';
import {
  browserAdapter,
  RUNTIME_ADAPTER_FLAG,
  BROWSER_FLAG,
  BROWSER_FLAGS_FLAG,
  RUNTIME_FLAG,
  TUNING_FLAG,
} from './common-flags.ts';
import { nodeCheckEnvironment } from './check-node.ts';
import { parseAdapter } from './device.ts';
import { str } from './flags.ts';
import { decimalNumber } from '../input/decimal.ts';
import { defineCommand } from './parser.ts';
import { writeFileSafely } from '../checkpoint/write-file-node.ts';
import { checkOutputFileFlag } from './output-flags.ts';

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
  const n = decimalNumber(v.trim().replace(/%$/, ''), 'typed');
  if (n === undefined || n < 0 || n >= 100)
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

export const command = defineCommand({
  name: 'check',
  summary: 'GPU regression test of this build on this adapter: kernels, PyTorch parity, DDP, learning, speed',
  synopsis: [
    '[--adapter auto|gpu|swiftshader|lavapipe] [--device NAME] [--quick] [--only GROUPS] [--kernels NAMES] [--json]',
    '--runtime chromium [--browser PATH] [--browser-flags="..."] [same options]',
  ].join('\n'),
  description:
    'GPU regression testing: does this build, on this adapter (driver, browser, WebGPU implementation),\n' +
    'still compute what PyTorch computes, and as fast as before? Runs, on one adapter:\n' +
    '  kernels  every WGSL kernel against the float64 CPU reference on odd shapes, with the override\n' +
    "           constants (workgroup sizes, tiles) this adapter's tuning selects; kernels the tuning does\n" +
    '           not pick for the model are checked too and marked so\n' +
    "  model    SimpleCNN against PyTorch (the package's fixtures/simplecnn_grad.safetensors): logits,\n" +
    '           loss, every gradient, two steps of SGD, Adam and AdamW, clip_grad_norm_ (rtol 1e-4, atol 1e-5)\n' +
    "  precision  webddp's fp16 step (--fp16: halves, loss scale, fp32 master) against one SGD step under\n" +
    "           PyTorch's CUDA autocast fp16 with a static loss scale (fixtures/simplecnn_autocast_fp16\n" +
    '           .safetensors): logits, loss, unscaled gradients, the master after the step, each within\n' +
    '           m x 2^-11 x its largest |value| (m from the fp16 roundings on its path, docs/precision.md);\n' +
    "           the convolutions' gradients are shown (skipped), not judged: max-pool's choices among\n" +
    '           fp16 ties make them differ by more than rounding\n' +
    "  ddp      a 2-worker DistributedDataParallel run against PyTorch's (fixtures/ddp_world2.safetensors):\n" +
    "           final parameters, each rank's DistributedSampler shard and per-step losses\n" +
    '  equivalence  ddp, zero1, zero2, zero3, dp and balanced-dp on 4 ranks (batch 2 each; balanced-dp\n' +
    '           1 + 3 + 2 + 2) and 2 micro-batches of 4 on one worker, 3 SGD steps, each against one\n' +
    '           worker at batch 8 from the same initial parameters and samples: the largest parameter\n' +
    '           difference, relative to the largest change, within 3 x n x 2^-24 (n = 8 x 32 x 32 + 4\n' +
    '           terms, the longest float32 sum of a step); --quick: 2 ranks of 4, 2 steps\n' +
    '  learn    one epoch on 2048 records of the built-in synthetic dataset (batch 32, SGD) must reach\n' +
    '           test accuracy > 30% (chance: 10%); --quick: 1024 records at lr 0.05, > 25%\n' +
    "  bench    one worker's training throughput (images/s) per batch size: on a GPU batches 128, 512,\n" +
    '           2048 (30 steps after 5 warm-up), on a software adapter 8 and 32 (3 after 1);\n' +
    '           --quick: 128 (10 after 3), software 4 (2 after 1)\n' +
    'Prints one line per check on stdout as it is decided (progress on stderr), then a summary; exits 0\n' +
    'only when every check holds (one that checks nothing fails).',
  flags: [
    RUNTIME_FLAG,
    RUNTIME_ADAPTER_FLAG,
    {
      flags: '--device <NAME>',
      help: 'node: the adapter whose name contains NAME (Dawn cannot tell identical GPUs apart)',
    },
    BROWSER_FLAG,
    BROWSER_FLAGS_FLAG,
    { flags: '--quick', help: 'shorter learning and equivalence checks and bench (CI on a software adapter)' },
    { flags: '--only <GROUPS>', help: `comma-separated subset of ${CHECK_GROUPS.join(',')}` },
    { flags: '--kernels <NAMES>', help: 'only the kernels whose name contains one of NAMES (comma-separated)' },
    TUNING_FLAG,
    {
      flags: '--shaders <DIR>',
      help:
        'node: DIR/<kernel>.wgsl replaces the bundled kernel in the kernel and model checks (check a modified ' +
        'kernel before building it in)',
    },
    { flags: '--json', help: 'print the report as one JSON object instead of the lines' },
    { flags: '--junit <FILE>', help: 'also write JUnit XML (one testcase per check) for CI systems' },
    { flags: '--save-baseline <FILE>', help: "write this run's throughput (images/s per bench row) as a baseline" },
    {
      flags: '--baseline <FILE>',
      help: 'fail every bench row slower than the baseline by more than --max-slowdown, and a baseline from another adapter',
    },
    {
      flags: '--max-slowdown <PCT>',
      help: 'percent (throughput on a GPU varies by about 10% between runs)',
      default: 10,
    },
  ],
  epilog: 'Exit codes: 0 all checks hold, 1 a check failed, 2 bad usage.',
  async run(values, _positionals, io, env) {
    const flag = (k: string) => str(values[k]);
    if (!env) throw new Error('webddp check needs the bundled CLI (bin/webddp.mjs)');
    const runtime = flag('runtime') ?? 'node';
    const json = values.json === true;
    if (runtime === 'node' && (flag('browser') !== undefined || flag('browser-flags') !== undefined))
      throw new UsageError('--browser and --browser-flags go with --runtime chromium');
    if (runtime === 'chromium' && (flag('shaders') !== undefined || flag('device') !== undefined))
      throw new UsageError('--shaders and --device are for --runtime node');
    const adapter = parseAdapter(flag('adapter'));
    const groups = groupsFlag(flag('only'));
    const maxSlowdown = slowdownFlag(flag('max-slowdown'));
    const baselineFile = flag('baseline');
    const saveBaseline = flag('save-baseline');
    const baseline: Baseline | undefined = baselineFile
      ? (() => {
          try {
            return parseBaseline(readText('--baseline', baselineFile), baselineFile);
          } catch (e) {
            throw new UsageError(`--baseline: ${(e as Error).message}`);
          }
        })()
      : undefined;
    if ((baseline || saveBaseline !== undefined) && !groups.includes('bench'))
      throw new UsageError('--baseline and --save-baseline compare throughput: include bench in --only');
    // where the results go, checked before the checks run: a report is never lost at the end
    const junit = flag('junit');
    if (junit !== undefined) await checkOutputFileFlag('--junit', junit);
    if (saveBaseline !== undefined) await checkOutputFileFlag('--save-baseline', saveBaseline);
    const kernels = flag('kernels')
      ?.split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const tuning = tuningOption(flag('tuning'));
    const common = {
      groups,
      quick: values.quick === true,
      ...(kernels ? { kernels } : {}),
      ...(tuning ? { tuning } : {}),
      ...(baseline ? { baseline, maxSlowdown } : {}),
    };
    const streamed = new Set<string>();
    const stream = (r: CheckRow) => {
      streamed.add(formatRow(r));
      io.out(`${formatRow(r)}\n`);
    };
    let report: CheckReport;
    if (runtime === 'chromium') {
      browserAdapter(adapter);
      const browser = flag('browser');
      const browserFlags = flag('browser-flags');
      report = await runCheckInBrowser(env, io, {
        ...common,
        adapter,
        ...(browser ? { browser } : {}),
        ...(browserFlags ? { flags: browserFlags } : {}),
      });
    } else {
      const shaders = shadersFlag(flag('shaders'));
      report = await runCheck(await nodeCheckEnvironment(env, io, adapter, flag('device')), {
        ...common,
        shaders,
        onGroup: (g) => io.err(`check: ${g} ...\n`),
        ...(json ? {} : { onRow: stream }),
      });
    }
    if (junit !== undefined) await writeFileSafely(junit, new TextEncoder().encode(toJUnit(report)), '--junit');
    if (saveBaseline !== undefined) {
      const b = makeBaseline(report.version, report.device.adapter, report.rows);
      await writeFileSafely(
        saveBaseline,
        new TextEncoder().encode(`${JSON.stringify(b, null, 2)}\n`),
        '--save-baseline',
      );
    }
    if (json) io.out(`${JSON.stringify(report)}\n`);
    else {
      // the rows not streamed yet: all of a browser's, and bench rows a baseline judged afterwards
      for (const r of report.rows) if (!streamed.has(formatRow(r))) io.out(`${formatRow(r)}\n`);
      io.out(`${formatSummary(report)}\n`);
    }
    return report.ok ? 0 : 1;
  },
});
