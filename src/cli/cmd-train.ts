// `webddp train`: data-parallel training in Node, one worker thread (and GPU device) per rank,
// on the built-in synthetic dataset or CIFAR-10 from a path. Logs come from rank 0.
import { parseArgs } from 'node:util';
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
import { UsageError, type Command } from './command.ts';
import { parseAdapter, settleWorkerAdapter } from './device.ts';
import { intFlag, parseFlags } from './flags.ts';
import { buildTrainConfig } from './train-config.ts';
import { defaultStoreDir, prepareData } from './train-data.ts';
import { TrainOutput } from './train-output.ts';
import { writeFileSafely } from '../checkpoint/write-file-node.ts';
import { TraceCollector } from '../trace/collect.ts';
import { recorderSpans } from '../runtime/recorder-spans.ts';
import { tuningOption } from './tuning-option.ts';
import { trainUsage as usage } from './train-usage.ts';

const num = { type: 'string' } as const;

export const command: Command = {
  name: 'train',
  summary: 'data-parallel training (DDP, DP, BalancedDP, ZeRO-1/2/3) on W workers with their own devices',
  usage,
  async run(argv, io, env) {
    const { values } = parseFlags(() =>
      parseArgs({
        args: [...argv],
        strict: true,
        options: {
          data: num,
          store: num,
          workers: num,
          mode: num,
          epochs: num,
          'batch-size': num,
          optimizer: num,
          lr: num,
          momentum: num,
          'weight-decay': num,
          seed: num,
          width: num,
          augment: { type: 'boolean' },
          'no-shuffle': { type: 'boolean' },
          'drop-last': { type: 'boolean' },
          'train-limit': num,
          'test-limit': num,
          'gpu0-bsz': num,
          'bucket-cap-mb': num,
          'grad-accum': num,
          'clip-grad-norm': num,
          'check-every': num,
          adapter: num,
          devices: num,
          'step-timeout': num,
          'log-every': num,
          json: { type: 'boolean', default: false },
          save: num,
          resume: num,
          'inject-fault': num,
          'checkpoint-dir': num,
          'checkpoint-every': num,
          keep: num,
          'max-steps': num,
          'resume-from': num,
          'max-restarts': num,
          'deepspeed-config': num,
          fp16: { type: 'boolean' },
          bf16: { type: 'boolean' },
          'reduce-bucket-size': num,
          schedule: num,
          trace: num,
          'debug-collectives': { type: 'boolean' },
          colocate: { type: 'boolean' },
          tuning: num,
          help: { type: 'boolean', default: false },
        },
      }),
    );
    if (values.help) {
      io.out(`${usage}\n`);
      return 0;
    }
    if (values.resume && values['resume-from']) throw new UsageError('--resume and --resume-from: give one');
    const resumed = values['resume-from'] ? await loadResume(values['resume-from'], values) : null;
    const built = await buildTrainConfig(resumed ? { ...values, 'deepspeed-config': undefined } : values);
    const config = resumed?.config ?? built.config;
    const { logEvery, notes } = built;
    const intOf = (flag: 'checkpoint-every' | 'keep' | 'max-steps' | 'max-restarts', min: number, dflt: number) => {
      const v = values[flag];
      return typeof v === 'string' ? intFlag(`--${flag}`, v, min) : dflt;
    };
    const checkpointEvery = intOf('checkpoint-every', 1, 0);
    const keep = intOf('keep', 0, 3);
    const maxSteps = values['max-steps'] === undefined ? undefined : intOf('max-steps', 1, 0);
    const maxRestarts = intOf('max-restarts', 0, 0);
    const checkpointDir = values['checkpoint-dir'];
    if (checkpointEvery > 0 && !checkpointDir) throw new UsageError('--checkpoint-every needs --checkpoint-dir');
    if (!env) throw new Error('webddp train needs the bundled rank worker (run it through bin/webddp.mjs)');
    if (!values.json) for (const n of notes) io.err(`${n}\n`);
    const parsedFault =
      values['inject-fault'] === undefined ? undefined : parseFaultSpec(values['inject-fault'], config.workers);
    if (parsedFault && !parsedFault.ok) throw new UsageError(`--inject-fault ${parsedFault.message}`);
    const fault = parsedFault?.fault;
    const spec = simpleCnnSpec(config.width);
    if (resumed && !values.json)
      io.err(
        `resuming ${resumed.dir}: epoch ${resumed.snapshot.position.epoch}, step ${resumed.snapshot.position.step}, ` +
          `global step ${resumed.snapshot.position.globalStep}\n`,
      );
    const initialParams = values.resume
      ? loadStateDict(await readRegularFile(values.resume), spec, values.resume)
      : undefined;
    const tuning = tuningOption(values.tuning);
    const storeDir = values.store ?? defaultStoreDir();
    const prepared = resumed
      ? await resumeData(resumed.dir, resumed.dataset, values.data, storeDir, io, values.json)
      : { ...(await prepareData(values.data ?? 'synthetic', storeDir, io, values.json)), fromCheckpoint: false };
    const dataset = storedDataset(prepared.manifest);
    const out = new TrainOutput(io, values.json, logEvery);
    out.data(prepared.manifest, prepared.fromCheckpoint);
    const devices = values.devices
      ? values.devices
          .split(',')
          .map((d) => d.trim())
          .filter(Boolean)
      : [];
    if (values.colocate && devices.length > 0) throw new UsageError('--colocate shares one device: not with --devices');
    if (values.colocate) checkColocate(config);
    const adapter = await settleWorkerAdapter(parseAdapter(values.adapter), devices[0]);
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
    /** Optimizer steps done (the flight recorder's step numbers): a failure's trace adds the later ones. */
    let stepsDone = resumed?.snapshot.position.globalStep ?? 0;
    const onSignal = () => {
      interrupted = true;
      run.stop();
    };
    process.once('SIGINT', onSignal);
    try {
      try {
        for await (const e of run.run()) {
          if (e.type === 'step') {
            trace?.add(e.spans);
            stepsDone++;
          }
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
      if (values.save) {
        const [params] = await run.readParams();
        if (!params) throw new Error('rank 0 returned no parameters');
        await writeFileSafely(values.save, saveStateDict(spec, params, { config: JSON.stringify(config) }));
        if (!values.json) io.err(`saved ${values.save}\n`);
      }
      // Ctrl-C: the checkpoint is written (when asked for); the shell's code for an interrupt.
      return interrupted ? 130 : 0;
    } finally {
      process.off('SIGINT', onSignal);
      if (trace && values.trace) {
        await writeFileSafely(
          values.trace,
          new TextEncoder().encode(JSON.stringify(trace.trace({ mode: config.mode, workers: config.workers }))),
        );
        if (!values.json) io.err(`trace: ${values.trace}\n`);
      }
      await run.close();
    }
  },
};

/** --colocate's rules as a usage error (ranks sharing a device run float32 DDP). */
function checkColocate(config: Parameters<typeof checkSharable>[0]): void {
  try {
    checkSharable(config);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}
