// `webddp sampler`: prints the indices one rank of torch's DistributedSampler gets in one epoch,
// as a JSON array (a teaching aid: which samples would rank r see?).
import { parseArgs } from 'node:util';
import { DistributedSampler, MAX_DATASET_LENGTH } from '../data/sampler.ts';
import { UsageError, type Command } from './command.ts';
import { intFlag, parseFlags, required, seedFlag } from './flags.ts';

const usage = `webddp sampler --n N --replicas R --rank r [--seed S] [--epoch E] [--no-shuffle] [--drop-last]

Prints, as one JSON array, the dataset indices that rank r of R gets in epoch E from
torch.utils.data.distributed.DistributedSampler(dataset of N samples, num_replicas=R, rank=r,
shuffle, seed=S, drop_last) after set_epoch(E): index for index what PyTorch gives.
  --n N          dataset length (required)
  --replicas R   number of ranks, num_replicas (required)
  --rank r       the rank, 0 <= r < R (required)
  --seed S       shuffle seed (default 0); the epoch's order is randperm(N) seeded S + E;
                 write negative values as --seed=-1
  --epoch E      the epoch passed to set_epoch (default 0)
  --no-shuffle   keep dataset order (shuffle=False)
  --drop-last    drop the tail so every rank gets the same count (drop_last=True) instead of
                 padding with indices from the start of the list`;

/** `webddp sampler`: see the usage text above. */
export const command: Command = {
  name: 'sampler',
  summary: "print one rank's DistributedSampler indices for an epoch (JSON, identical to PyTorch)",
  usage,
  async run(argv, io) {
    const values = parseFlags(
      () =>
        parseArgs({
          args: [...argv],
          strict: true,
          allowPositionals: false,
          options: {
            n: { type: 'string' },
            replicas: { type: 'string' },
            rank: { type: 'string' },
            seed: { type: 'string' },
            epoch: { type: 'string' },
            'no-shuffle': { type: 'boolean', default: false },
            'drop-last': { type: 'boolean', default: false },
            help: { type: 'boolean', default: false },
          },
        }).values,
    );
    if (values.help) {
      io.out(`${usage}\n`);
      return 0;
    }
    const n = intFlag('--n', required('--n', values.n), 0, MAX_DATASET_LENGTH);
    const replicas = intFlag('--replicas', required('--replicas', values.replicas), 1);
    const rank = intFlag('--rank', required('--rank', values.rank), 0, replicas - 1);
    const seed = values.seed === undefined ? 0n : seedFlag('--seed', values.seed);
    const epoch = values.epoch === undefined ? 0 : intFlag('--epoch', values.epoch);
    const sampler = new DistributedSampler(n, {
      numReplicas: replicas,
      rank,
      shuffle: !values['no-shuffle'],
      seed,
      dropLast: values['drop-last'],
    });
    try {
      sampler.setEpoch(epoch);
    } catch (e) {
      if (e instanceof RangeError) throw new UsageError(`--epoch ${epoch} with --seed ${seed}: ${e.message}`);
      throw e;
    }
    io.out(`${JSON.stringify(Array.from(sampler.indices()))}\n`);
    return 0;
  },
};
