// `webddp export-torchrun`: a checkpoint turned into a small PyTorch project that continues the run
// under torchrun (train.py, its helper modules, README.md, ds_config.json for a ZeRO run, and the
// checkpoint's files). Environment-free: this builds the files' contents, the CLI writes them.
// The Python modules live in ./python/ as plain .py files, bundled as text.
import {
  CHECKPOINT_FILES,
  CheckpointError,
  readCheckpoint,
  type CheckpointBytes,
  type Snapshot,
} from '../checkpoint/checkpoint.ts';
import { describeDataset, type DatasetRecord } from '../checkpoint/dataset-record.ts';
import { MODES } from '../config.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import { PARALLEL_MODES } from '../parallel/index.ts';
import { deepSpeedConfig, deepSpeedSchedules, zeroStage } from './ds-config.ts';
import { pySettings } from './py-settings.ts';
import { readme } from './readme.ts';
import trainPy from './python/train.py?raw';
import dataPy from './python/webddp_data.py?raw';
import safetensorsPy from './python/webddp_safetensors.py?raw';
import schedulesPy from './python/webddp_schedules.py?raw';

const MARKER = '# @SETTINGS@';

export interface ExportOptions {
  /** The checkpoint directory (named in the README and in errors). */
  readonly source: string;
  /** train.py's --data as given ('synthetic' or a CIFAR-10 path); absent: the dataset the checkpoint records. */
  readonly data?: string;
  /** The default where the checkpoint records no stored dataset (default 'synthetic'). */
  readonly unrecorded?: string;
}

/** train.py's --data for a recorded stored dataset: 'synthetic', or the CIFAR-10 archive or directory it was imported from. */
function trainPyData(r: DatasetRecord & { kind: 'stored' }): string {
  const s = r.source;
  if (s.kind === 'synthetic') return 'synthetic';
  if (s.kind === 'archive' || (s.kind === 'files' && !s.description.startsWith('files: '))) return s.description;
  return 'cifar-10-binary.tar.gz';
}

/** train.py's default --data and what the README must warn about it. */
function dataFor(recorded: DatasetRecord | null, opts: ExportOptions): { data: string; warning: string | null } {
  if (recorded?.kind !== 'stored') {
    const data = opts.data ?? opts.unrecorded ?? 'synthetic';
    const why =
      recorded === null
        ? 'the checkpoint does not record its dataset (written before checkpoints recorded it)'
        : `the run trained on ${describeDataset(recorded)}`;
    return { data, warning: `${why}: train.py reads --data (default '${data}'); give the set the run trained on` };
  }
  const own = trainPyData(recorded);
  if (opts.data === undefined || (opts.data === 'synthetic') === (own === 'synthetic')) {
    return { data: opts.data ?? own, warning: null };
  }
  return {
    data: opts.data,
    warning:
      `--data ${opts.data} is not the data the checkpoint records, ${describeDataset(recorded)} ` +
      `('${own}'): train.py would continue the run on other data`,
  };
}

export interface TorchrunProject {
  /** Relative path -> contents. */
  readonly files: Readonly<Record<string, Uint8Array>>;
  /** What does not carry over exactly, for the user to read before running it. */
  readonly warnings: readonly string[];
}

/** Refuses what a torchrun DDP script cannot continue, naming the checkpoint and why. */
function refuse(s: Snapshot, source: string): void {
  const c = s.config;
  const mode = PARALLEL_MODES[c.mode];
  if (mode.torchrunRefusal !== null)
    throw new CheckpointError(
      source,
      `a ${mode.title} run: ${mode.torchrunRefusal}; export a checkpoint of a ` +
        `${MODES.filter((m) => PARALLEL_MODES[m].torchrunRefusal === null).join(', ')} run`,
    );
  if (c.fp16)
    throw new CheckpointError(
      source,
      "an fp16 run: train.py trains in float32 and PyTorch's AMP scales losses otherwise than DeepSpeed's fp16, so no torchrun script continues it exactly (webddp train --resume-from does)",
    );
  if (c.bf16)
    throw new CheckpointError(
      source,
      'a bf16 run: train.py trains in float32, so no torchrun script continues it exactly (webddp train --resume-from does)',
    );
}

/** The project's files for a decoded checkpoint and its raw files (copied into checkpoint/ as they are). */
export function torchrunProject(
  s: Snapshot,
  raw: CheckpointBytes,
  opts: ExportOptions,
  recorded: DatasetRecord | null = null,
): TorchrunProject {
  refuse(s, opts.source);
  const c = s.config;
  const p = s.position;
  const spec = simpleCnnSpec(c.width);
  if (!trainPy.includes(MARKER)) throw new Error(`train.py template has no '${MARKER}' line`);
  const text = new TextEncoder();
  const { data, warning } = dataFor(recorded, opts);
  const files: Record<string, Uint8Array> = {
    'train.py': text.encode(trainPy.replace(MARKER, pySettings({ config: c, position: p, spec, data }))),
    'webddp_data.py': text.encode(dataPy),
    'webddp_safetensors.py': text.encode(safetensorsPy),
    'webddp_schedules.py': text.encode(schedulesPy),
    'README.md': text.encode(readme({ config: c, position: p, source: opts.source, data, recorded })),
  };
  for (const f of CHECKPOINT_FILES) files[`checkpoint/${f}`] = raw[f];
  const warnings: string[] = warning ? [warning] : [];
  if (zeroStage(c.mode) !== null) {
    files['ds_config.json'] = text.encode(
      `${JSON.stringify(deepSpeedConfig(c, c.epochs * p.stepsPerEpoch), null, 2)}\n`,
    );
    warnings.push(
      `${c.mode}: train.py continues with DistributedDataParallel (the same updates); ds_config.json is the run's ` +
        "DeepSpeed config, but DeepSpeed's own checkpoint format is not written, so under DeepSpeed only the parameters carry over",
    );
    if (c.schedule !== 'none' && !deepSpeedSchedules(c))
      warnings.push(
        `ds_config.json has no scheduler: ${c.schedule.type} is PyTorch's, not one of DeepSpeed's; pass train.py's make_scheduler() to deepspeed.initialize`,
      );
  }
  if (c.augment)
    warnings.push(
      "--augment: train.py draws crops and flips from webddp's own stream (webddp_data.Augmenter), not torchvision's transforms",
    );
  if (p.epoch >= c.epochs)
    warnings.push(
      `the run finished all ${c.epochs} epoch(s): train.py trains on only with --epochs greater than ${c.epochs} ` +
        "(a schedule's total steps then follow --epochs, so the lr differs from the finished run's)",
    );
  // the README keeps what the CLI prints and the page shows only once
  const notes = warnings.map((w) => `* ${w}`).join('\n');
  files['README.md'] = text.encode(
    `${new TextDecoder().decode(files['README.md'])}\n## Read before running\n\n${notes}\n`,
  );
  return { files, warnings };
}

/**
 * A checkpoint's raw files (from a directory or the page's IndexedDB) read and checked whole
 * (checksums, names, shapes, values), then turned into the project: the CLI and the page both call this.
 */
export async function exportCheckpoint(
  raw: CheckpointBytes,
  opts: ExportOptions,
): Promise<{ snapshot: Snapshot; project: TorchrunProject }> {
  const { snapshot, dataset } = await readCheckpoint(raw, opts.source);
  return { snapshot, project: torchrunProject(snapshot, raw, opts, dataset) };
}
