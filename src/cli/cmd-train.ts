// `webddp train`: data-parallel training in Node, one worker thread (and GPU device) per rank,
// on the built-in synthetic dataset or CIFAR-10 from a path. Logs come from rank 0.
import { stat } from 'node:fs/promises';
import { loadStateDict, saveStateDict } from '../checkpoint/state-dict.ts';
import { readRegularFile } from '../data/file-node.ts';
import { ElasticRun } from '../runtime/elastic.ts';
import { RankFailedError } from '../runtime/events.ts';
import { encodeCheckpoint, type Snapshot } from '../checkpoint/checkpoint.ts';
import { writeCheckpointDir } from '../checkpoint/dir-node.ts';
import { loadResume, resumeData } from './train-resume.ts';
import { storedDataset } from '../checkpoint/dataset-record.ts';
import { colocatedSpawner, nodeSpawner } from '../runtime/spawn-node.ts';
import { checkSharable } from '../runtime/shared-device.ts';
import { simpleCnnSpec } from '../nn/spec.ts';
import { parseFaultSpec } from '../runtime/fault.ts';
import { UsageError, type FlagValues } from './command.ts';
import { parseAdapter, settleWorkerAdapter } from './device.ts';
import { intFlag, str } from './flags.ts';
import { defineCommand } from './parser.ts';
import { buildTrainConfig } from './train-config.ts';
import { defaultStoreDir, prepareData } from './train-data.ts';
import { TrainOutput } from './train-output.ts';
import { writeFileSafely } from '../checkpoint/write-file-node.ts';
import { TraceCollector } from '../trace/collect.ts';
import { tuningOption } from './tuning-option.ts';
import { TRAIN_DESCRIPTION, TRAIN_EPILOG, TRAIN_SYNOPSIS, trainFlags } from './train-flags.ts';

export const command = defineCommand({
  name: 'train',
  summary: 'data-parallel training (DDP, DP, BalancedDP, ZeRO-1/2/3) on W workers with their own devices',
  synopsis: TRAIN_SYNOPSIS,
  description: TRAIN_DESCRIPTION,
  flags: trainFlags(),
  epilog: TRAIN_EPILOG,
  async run(flagValues, _positionals, io, env) {
    const values: FlagValues = { ...flagValues, 'resume-from': await resumeDir(flagValues) };
    const resumeFrom = str(values['resume-from']);
    const json = values.json === true;
    const resumed = resumeFrom ? await loadResume(resumeFrom, values) : null;
    const built = await buildTrainConfig(resumed ? { ...values, 'deepspeed-config': undefined } : values);
    const config = resumed?.config ?? built.config;
    const { logEvery, notes } = built;
    const intOf = (flag: 'checkpoint-every' | 'keep' | 'max-steps' | 'max-restarts', min: number, dflt: number) => {
      const v = str(values[flag]);
      return typeof v === 'string' ? intFlag(`--${flag}`, v, min) : dflt;
    };
    const checkpointEvery = intOf('checkpoint-every', 1, 0);
    const keep = intOf('keep', 0, 3);
    const maxSteps = values['max-steps'] === undefined ? undefined : intOf('max-steps', 1, 0);
    const maxRestarts = intOf('max-restarts', 0, 0);
    const checkpointDir = str(values['checkpoint-dir']);
    if (checkpointEvery > 0 && !checkpointDir) throw new UsageError('--checkpoint-every needs --checkpoint-dir');
    if (!env) throw new Error('webddp train needs the bundled rank worker (run it through bin/webddp.mjs)');
    if (!json) for (const n of notes) io.err(`${n}\n`);
    const faultSpec = str(values['inject-fault']);
    const parsedFault = faultSpec === undefined ? undefined : parseFaultSpec(faultSpec, config.workers);
    if (parsedFault && !parsedFault.ok) throw new UsageError(`--inject-fault ${parsedFault.message}`);
    const fault = parsedFault?.fault;
    const spec = simpleCnnSpec(config.width);
    if (resumed && !json)
      io.err(
        `resuming ${resumed.dir}: epoch ${resumed.snapshot.position.epoch}, step ${resumed.snapshot.position.step}, ` +
          `global step ${resumed.snapshot.position.globalStep}\n`,
      );
    const initFrom = str(values['init-from']);
    const initialParams = initFrom ? loadStateDict(await readRegularFile(initFrom), spec, initFrom) : undefined;
    const tuning = tuningOption(str(values.tuning));
    const storeDir = str(values.store) ?? defaultStoreDir();
    const data = str(values.data);
    const prepared = resumed
      ? await resumeData(resumed.dir, resumed.dataset, data, storeDir, io, json)
      : { ...(await prepareData(data ?? 'synthetic', storeDir, io, json)), fromCheckpoint: false };
    const dataset = storedDataset(prepared.manifest);
    const out = new TrainOutput(io, json, logEvery);
    out.data(prepared.manifest, prepared.fromCheckpoint);
    const deviceList = str(values.devices);
    const devices = deviceList
      ? deviceList
          .split(',')
          .map((d) => d.trim())
          .filter(Boolean)
      : [];
    if (values.colocate && devices.length > 0) throw new UsageError('--colocate shares one device: not with --devices');
    if (values.colocate) checkColocate(config);
    const adapter = await settleWorkerAdapter(parseAdapter(str(values.adapter)), devices[0]);
    const run = new ElasticRun({
      config,
      data: prepared.data,
      spawn: values.colocate
        ? colocatedSpawner(env.rankWorkerUrl, adapter, config.workers)
        : nodeSpawner(env.rankWorkerUrl, adapter, devices),
      ...(initialParams ? { initialParams } : {}),
      ...(resumed ? { resume: resumed.snapshot } : {}),
      ...(fault ? { fault } : {}),
      ...(values.trace ? { trace: true } : {}),
      ...(tuning ? { tuning } : {}),
      ...(values.colocate ? { colocated: true } : {}),
      maxRestarts,
      ...(maxSteps !== undefined ? { maxSteps } : {}),
      ...(checkpointDir
        ? {
            checkpoint: {
              every: checkpointEvery,
              save: async (s: Snapshot) =>
                writeCheckpointDir(
                  checkpointDir,
                  s.position.globalStep,
                  await encodeCheckpoint(s, spec, dataset),
                  keep,
                ),
            },
          }
        : {}),
    });
    const trace = values.trace ? new TraceCollector() : null;
    let interrupted = false;
    const onSignal = () => {
      interrupted = true;
      run.stop();
    };
    process.once('SIGINT', onSignal);
    try {
      try {
        for await (const e of run.run()) {
          if (e.type === 'step') trace?.add(e.spans);
          out.event(e);
        }
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        if (e instanceof RankFailedError) out.error(e.kind, e.rank, err.message);
        else out.error(err.name, null, err.message);
        throw e;
      }
      const save = str(values.save);
      if (save) {
        const [params] = await run.readParams();
        if (!params) throw new Error('rank 0 returned no parameters');
        await writeFileSafely(save, saveStateDict(spec, params, { config: JSON.stringify(config) }));
        if (!json) io.err(`saved ${save}\n`);
      }
      // Ctrl-C: the checkpoint is written (when asked for); the shell's code for an interrupt.
      return interrupted ? 130 : 0;
    } finally {
      process.off('SIGINT', onSignal);
      const traceFile = str(values.trace);
      if (trace && traceFile) {
        await writeFileSafely(
          traceFile,
          new TextEncoder().encode(JSON.stringify(trace.trace({ mode: config.mode, workers: config.workers }))),
        );
        if (!json) io.err(`trace: ${traceFile}\n`);
      }
      await run.close();
    }
  },
});

/** --colocate's rules as a usage error (ranks sharing a device run float32 DDP). */
function checkColocate(config: Parameters<typeof checkSharable>[0]): void {
  try {
    checkSharable(config);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

/**
 * The checkpoint directory to continue, from --resume or --resume-from (one of them). --resume
 * used to take a weights file: a file given to it is refused with the flag that does that now.
 */
async function resumeDir(values: FlagValues): Promise<string | undefined> {
  const resume = str(values.resume);
  const resumeFrom = str(values['resume-from']);
  if (resume !== undefined && resumeFrom !== undefined) throw new UsageError('--resume and --resume-from: give one');
  if (resume !== undefined && str(values['init-from']) !== undefined)
    throw new UsageError('--resume continues a checkpoint with its own parameters: not with --init-from');
  if (resumeFrom !== undefined && str(values['init-from']) !== undefined)
    throw new UsageError('--resume-from continues a checkpoint with its own parameters: not with --init-from');
  if (resume !== undefined && (await stat(resume).catch(() => null))?.isFile())
    throw new UsageError(
      `--resume ${resume} is a file: --resume continues a checkpoint directory (DIR/step-N, or a ` +
        '--checkpoint-dir); to start from the parameters in a safetensors file, use --init-from FILE',
    );
  return resume ?? resumeFrom;
}
