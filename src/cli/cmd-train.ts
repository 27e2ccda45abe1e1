// `webddp train`: data-parallel training in Node, one worker thread (and GPU device) per rank,
// on the built-in synthetic dataset or CIFAR-10 from a path. Logs come from rank 0.
import { stat } from 'node:fs/promises';
import { loadStateDict, saveStateDict } from '../checkpoint/state-dict.ts';
import { readRegularFile } from '../data/file-node.ts';
import { ElasticRun } from '../runtime/elastic.ts';
import { RankFailedError } from '../runtime/events.ts';
import { encodeCheckpoint, type Snapshot } from '../checkpoint/checkpoint.ts';
import { maxTensorFileBytes } from '../checkpoint/trainer-json.ts';
import { writeCheckpointDir } from '../checkpoint/dir-node.ts';
import { lockCheckpointDir } from '../checkpoint/dir-lock-node.ts';
import { checkOutputFile, ensureDirectory } from '../input/path-node.ts';
import { asUsage } from './output-flags.ts';
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
import { recorderSpans } from '../runtime/recorder-spans.ts';
import { tuningOption } from './tuning-option.ts';
import { transportOption } from './transport-option.ts';
import { TRAIN_DESCRIPTION, TRAIN_EPILOG, TRAIN_SYNOPSIS, trainFlags } from './train-flags.ts';

export const command = defineCommand({
  name: 'train',
  summary: 'data-parallel training (DDP, DP, BalancedDP, ZeRO-1/2/3) on W workers with their own devices',
  synopsis: TRAIN_SYNOPSIS,
  description: TRAIN_DESCRIPTION,
  flags: trainFlags(),
  epilog: TRAIN_EPILOG,
  async run(flagValues, _positionals, io, env) {
    for (const flag of PATH_FLAGS)
      if (flagValues[flag] === '') throw new UsageError(`--${flag} '': the path is empty; give a path`);
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
    const initialParams = initFrom
      ? loadStateDict(await readRegularFile(initFrom, maxTensorFileBytes(spec, 'model.safetensors')), spec, initFrom)
      : undefined;
    const tuning = tuningOption(str(values.tuning));
    const saveFile = str(values.save);
    const traceOut = str(values.trace);
    const storeFlag = str(values.store);
    // Where the run writes, checked before anything is trained: never over a device or a directory.
    await asUsage(async () => {
      if (saveFile !== undefined) await checkOutputFile(saveFile, '--save');
      if (traceOut !== undefined) await checkOutputFile(traceOut, '--trace');
      if (storeFlag !== undefined) await ensureDirectory(storeFlag, '--store');
    });
    const storeDir = storeFlag ?? defaultStoreDir();
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
    const adapter = await settleWorkerAdapter(
      parseAdapter(str(values.adapter)),
      devices[0],
      config.fp16,
      json ? undefined : io,
    );
    // One run at a time in a checkpoint directory; what a killed run left there is removed.
    const lock = checkpointDir ? await asUsage(() => lockCheckpointDir(checkpointDir)) : null;
    if (lock && lock.removed.length > 0 && !json)
      io.err(`${checkpointDir}: removed what an interrupted run left: ${lock.removed.join(', ')}\n`);
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
      ...(values['debug-collectives'] ? { debugCollectives: true } : {}),
      ...(tuning ? { tuning } : {}),
      ...(values.colocate ? { colocated: true } : {}),
      ...transportOption(),
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
    /** Optimizer steps done (the flight recorder's step numbers): a failure's trace adds the later ones. */
    let stepsDone = resumed?.snapshot.position.globalStep ?? 0;
    // SIGINT (Ctrl-C) and SIGTERM (schedulers, torchrun): the checkpoint is written where one is
    // asked for, no evaluation is waited for, and the shell's code for the signal is returned.
    let signal: NodeJS.Signals | null = null;
    const onSignal = (s: NodeJS.Signals) => {
      signal ??= s;
      for (const other of SIGNALS) process.off(other, onSignal); // a second signal ends the process at once
      run.stop({ interrupt: true });
    };
    for (const s of SIGNALS) process.once(s, onSignal);
    try {
      try {
        for await (const e of run.run()) {
          if (e.type === 'step') {
            trace?.add(e.spans);
            stepsDone++;
          } else if (e.type === 'done') trace?.add(e.spans);
          out.event(e);
        }
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        if (e instanceof RankFailedError) {
          out.error(e.kind, e.rank, err.message, e.collectives?.states);
          trace?.add(e.collectives ? recorderSpans(e.collectives.states, stepsDone) : undefined);
        } else out.error(err.name, null, err.message);
        throw e;
      }
      const save = str(values.save);
      if (save) {
        const [params] = await run.readParams();
        if (!params) throw new Error('rank 0 returned no parameters');
        await writeFileSafely(save, saveStateDict(spec, params, { config: JSON.stringify(config) }), '--save');
        if (!json) io.err(`saved ${save}\n`);
      }
      return signal === null ? 0 : SIGNALS_EXIT[signal];
    } finally {
      for (const s of SIGNALS) process.off(s, onSignal);
      const traceFile = str(values.trace);
      if (trace && traceFile) {
        await writeFileSafely(
          traceFile,
          new TextEncoder().encode(JSON.stringify(trace.trace({ mode: config.mode, workers: config.workers }))),
          '--trace',
        );
        if (!json) io.err(`trace: ${traceFile}\n`);
      }
      await run.close();
      await lock?.release();
    }
  },
});

const PATH_FLAGS = [
  'data',
  'store',
  'save',
  'resume',
  'init-from',
  'resume-from',
  'checkpoint-dir',
  'deepspeed-config',
  'trace',
] as const;
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** 128 + the signal's number, as a shell reports a process the signal ended. */
const SIGNALS_EXIT: Record<NodeJS.Signals, number> = { SIGINT: 130, SIGTERM: 143 } as Record<NodeJS.Signals, number>;

/** --colocate's rules (the mode table's shared-device placements) as a usage error. */
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
