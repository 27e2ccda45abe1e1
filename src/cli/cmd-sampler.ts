// `webddp sampler`: prints the indices one rank of torch's DistributedSampler gets in one epoch,
// as a JSON array (a teaching aid: which samples would rank r see?).
import { DistributedSampler, MAX_DATASET_LENGTH } from '../data/sampler.ts';
import { UsageError } from './command.ts';
import { intFlag, required, seedFlag, str } from './flags.ts';
import { defineCommand } from './parser.ts';

/** `webddp sampler`: one rank's DistributedSampler indices for one epoch. */
export const command = defineCommand({
  name: 'sampler',
  summary: "print one rank's DistributedSampler indices for an epoch (JSON, identical to PyTorch)",
  synopsis: '--n N --replicas R --rank r [--seed S] [--epoch E] [--no-shuffle] [--drop-last]',
  description:
    'Prints, as one JSON array, the dataset indices that rank r of R gets in epoch E from\n' +
    'torch.utils.data.distributed.DistributedSampler(dataset of N samples, num_replicas=R, rank=r,\n' +
    'shuffle, seed=S, drop_last) after set_epoch(E): index for index what PyTorch gives.',
  flags: [
    { flags: '--n <N>', help: 'dataset length (required)' },
    { flags: '--replicas <R>', help: 'number of ranks, num_replicas (required)' },
    { flags: '--rank <r>', help: 'the rank, 0 <= r < R (required)' },
    { flags: '--seed <S>', help: "shuffle seed; the epoch's order is randperm(N) seeded S + E", default: 0 },
    { flags: '--epoch <E>', help: 'the epoch passed to set_epoch', default: 0 },
    { flags: '--no-shuffle', help: 'keep dataset order (shuffle=False)' },
    {
      flags: '--drop-last',
      help:
        'drop the tail so every rank gets the same count (drop_last=True) instead of padding with indices ' +
        'from the start of the list',
    },
  ],
  async run(values, _positionals, io) {
    const n = intFlag('--n', required('--n', str(values.n)), 0, MAX_DATASET_LENGTH);
    const replicas = intFlag('--replicas', required('--replicas', str(values.replicas)), 1);
    const rank = intFlag('--rank', required('--rank', str(values.rank)), 0, replicas - 1);
    const seed = values.seed === undefined ? 0n : seedFlag('--seed', String(values.seed));
    const epoch = values.epoch === undefined ? 0 : intFlag('--epoch', String(values.epoch));
    const sampler = new DistributedSampler(n, {
      numReplicas: replicas,
      rank,
      shuffle: !values['no-shuffle'],
      seed,
      dropLast: values['drop-last'] === true,
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
});
