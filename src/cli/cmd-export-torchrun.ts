// `webddp export-torchrun CHECKPOINT --out DIR`: writes a small PyTorch project that continues a
// checkpoint's run under torchrun (src/export/). The checkpoint is read and checked whole first
// (checksums, names, shapes, values); the project is written into a temporary directory next to
// DIR and renamed into place, so a failure leaves nothing behind and an existing DIR is never
// overwritten.
import { mkdir, open, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { readCheckpointDir, resolveCheckpointDir } from '../checkpoint/dir-node.ts';
import { exportCheckpoint } from '../export/torchrun.ts';
import { UsageError } from './command.ts';
import { required, str } from './flags.ts';
import { defineCommand } from './parser.ts';
import { WriteFileError } from '../checkpoint/write-file-node.ts';
import { ensureDirectory } from '../input/path-node.ts';
import { checkOutputDirectoryFlag } from './output-flags.ts';

async function emptyOrAbsent(dir: string): Promise<void> {
  const names = await readdir(dir).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return [];
    throw e;
  });
  if (names.length > 0) throw new UsageError(`--out ${dir} is not empty (${names.length} entries): nothing written`);
}

async function writeProject(dir: string, files: Readonly<Record<string, Uint8Array>>): Promise<void> {
  const tmp = join(dirname(dir), `.${basename(dir)}.tmp-${process.pid}`);
  try {
    await ensureDirectory(dirname(dir), '--out');
    await rm(tmp, { recursive: true, force: true });
    for (const [name, bytes] of Object.entries(files)) {
      const path = join(tmp, name);
      await mkdir(dirname(path), { recursive: true });
      const fh = await open(path, 'wx', 0o644);
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
    }
    await rmdir(dir).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== 'ENOENT') throw e;
    });
    await rename(tmp, dir);
  } catch (e) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw new WriteFileError(dir, (e as NodeJS.ErrnoException).code, e);
  }
}

export const command = defineCommand({
  name: 'export-torchrun',
  summary: 'write a PyTorch project (train.py, README, ds_config.json) that continues a checkpoint with torchrun',
  synopsis: 'CHECKPOINT --out DIR [--data synthetic|PATH]',
  description:
    "Writes a small PyTorch project into DIR that continues the checkpoint's run with torchrun\n" +
    "(DistributedDataParallel, CPU/gloo or CUDA/NCCL): train.py (SimpleCNN under PyTorch's names, the\n" +
    'same DistributedSampler seed and position, optimizer and hyperparameters, learning-rate schedule at\n' +
    'the same step, gradient accumulation and clipping, model and optimizer state loaded from the\n' +
    "checkpoint, the current epoch's finished steps skipped; rank 0 saves the final parameters as\n" +
    'safetensors), its data, safetensors and schedule modules, README.md with the torchrun commands for\n' +
    'one machine and several and what carries over, ds_config.json for a ZeRO run, and checkpoint/.\n' +
    '  CHECKPOINT    a checkpoint directory (DIR/step-N), or a --checkpoint-dir (its newest)',
  args: ['[CHECKPOINT]'],
  flags: [
    { flags: '--out <DIR>', help: 'where to write the project (must not exist, or be empty)' },
    {
      flags: '--data <D>',
      help:
        "train.py's default --data: synthetic or the CIFAR-10 path the run used (cifar-10-binary.tar.gz or a " +
        'directory of .bin files); default: the dataset the checkpoint records (synthetic for a checkpoint that ' +
        'records none); one that differs from the record is written with a warning in the README',
    },
  ],
  epilog: 'DataParallel, BalancedDataParallel and fp16 runs are refused (no torchrun script continues them).',
  async run(values, positionals, io) {
    if (positionals.length !== 1)
      throw new UsageError(
        positionals.length === 0
          ? 'give the CHECKPOINT directory to export'
          : `give one CHECKPOINT directory (got ${positionals.length}: ${positionals.join(' ')})`,
      );
    const out = await checkOutputDirectoryFlag('--out', required('--out', str(values.out)));
    const given = str(values.data);
    const data = given === undefined || given === 'synthetic' ? given : resolve(given);
    if (data !== undefined && data !== 'synthetic')
      await stat(data).catch((e: Error) => {
        throw new UsageError(
          `--data ${data}: ${e.message} (synthetic, or the CIFAR-10 archive or directory the run read)`,
        );
      });
    await emptyOrAbsent(out);
    const dir = await resolveCheckpointDir(positionals[0] ?? '');
    const raw = await readCheckpointDir(dir);
    const { snapshot, project } = await exportCheckpoint(raw, { source: dir, ...(data !== undefined ? { data } : {}) });
    await writeProject(out, project.files);
    for (const w of project.warnings) io.err(`warning: ${w}\n`);
    const p = snapshot.position;
    io.err(
      `webddp export-torchrun: wrote ${out} (${Object.keys(project.files).length} files): epoch ${p.epoch}, ` +
        `step ${p.step}, global step ${p.globalStep}; run it with\n` +
        `  cd ${out} && torchrun --standalone --nproc_per_node ${snapshot.config.workers} train.py\n`,
    );
    return 0;
  },
});
