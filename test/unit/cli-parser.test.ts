// The command line as people type it (src/cli/parser.ts over commander, through main()): -h and -V
// on every command, defaults in --help, a flag given twice refused, numbers decimal only, and what
// to type instead for the spellings of torchrun, DeepSpeed and PyTorch's example scripts. Every
// case here is refused before any GPU or file work, so it runs in milliseconds.
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { VERSION } from '../../src/version.ts';

async function webddp(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

const COMMANDS = ['train', 'parity', 'check', 'bench', 'devices', 'sampler', 'init', 'export-torchrun', 'serve'];

describe('webddp command line', () => {
  it.each(COMMANDS)('%s -h and --help print its usage on stdout, -V its version', async (name) => {
    for (const h of ['-h', '--help']) {
      const r = await webddp(name, h);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(new RegExp(`^Usage: webddp ${name} `));
      expect(r.out).toContain('-h, --help');
      expect(r.err).toBe('');
    }
    const v = await webddp(name, '-V');
    expect(v.code).toBe(0);
    expect(v.out).toBe(`webddp ${VERSION}\n`);
  });

  it('webddp help train prints the train help', async () => {
    const r = await webddp('help', 'train');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^Usage: webddp train /);
    expect(r.err).toBe('');
  });

  it('webddp -V, -v, --version and version print the version; no command prints the list and exits 2', async () => {
    for (const a of ['-V', '-v', '--version', 'version']) expect((await webddp(a)).out).toBe(`webddp ${VERSION}\n`);
    const none = await webddp();
    expect(none.code).toBe(2);
    for (const name of COMMANDS) expect(none.out).toContain(name);
  });

  it("train --help shows the defaults a run uses (SGD's momentum 0.9, lr 0.01, 2 workers)", async () => {
    const { out } = await webddp('train', '--help');
    expect(out).toMatch(/--momentum <X>\s+SGD momentum \(default: 0\.9\)/);
    expect(out).toMatch(/--lr <X>\s+learning rate [^-]*\(default: 0\.01\)/);
    expect(out).toMatch(/--workers <W>[\s\S]{0,200}?\(default: 2\)/);
    expect(out).toMatch(/--mode <MODE>[\s\S]*choices: "ddp", "dp",\s+"balanced-dp", "zero1", "zero2", "zero3"/);
    expect(out).toContain('--init-from <FILE>');
  });

  it.each([
    [['train', '--batch_size', '8'], /unknown option '--batch_size': did you mean --batch-size\?/],
    [
      ['train', '--deepspeed_config', 'ds.json'],
      /unknown option '--deepspeed_config': did you mean --deepspeed-config\?/,
    ],
    [['train', '--epoch', '3'], /unknown option '--epoch': did you mean --epochs\?/],
    [['train', '--nproc_per_node', '4'], /--nproc_per_node is --workers here: .*give --workers N/],
    [['train', '--local_rank', '0'], /pass --local_rank .*nothing reads one: give --workers N/],
    [['train', '--num_gpus', '2'], /--num_gpus is --workers here/],
    [['bench', '--batch_size', '8'], /unknown option '--batch_size'/],
    [['train', '--momentun', '0.5'], /unknown option '--momentun' \(did you mean --momentum\?\)/],
  ])('%j is refused with what to type instead', async (argv, msg) => {
    const r = await webddp(...argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(msg);
    expect(r.err).toContain(`(webddp ${argv[0]} --help for usage)`);
    expect(r.err.split('\n').filter((l) => l.includes('unknown option'))).toHaveLength(1); // said once
  });

  it('a flag given twice is refused, naming it', async () => {
    const r = await webddp('train', '--lr', '0.1', '--lr', '0.2');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--lr was given twice: give it once/);
    const s = await webddp('sampler', '--n', '4', '--n', '5', '--replicas', '1', '--rank', '0');
    expect(s.err).toMatch(/--n was given twice/);
  });

  it.each([
    ['--lr', '0x10'],
    ['--lr', 'Infinity'],
    ['--momentum', '1_0'],
    ['--lr', ''],
    ['--width', '0b1'],
  ])('train %s %j: numbers are decimal only', async (flag, value) => {
    const r = await webddp('train', flag, value);
    expect(r.code).toBe(2);
    expect(r.err).toContain(`${flag} must be a decimal number`);
    expect(r.err).toContain(`(got '${value}')`);
  });

  it('a value outside the choices is refused by the parser, listing them', async () => {
    const r = await webddp('train', '--mode', 'fsdp');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/argument 'fsdp' is invalid\. Allowed choices are ddp, dp, balanced-dp, zero1, zero2, zero3/);
  });

  it('--resume given a weights file points at --init-from; --resume with --resume-from is refused', async () => {
    const file = new URL('../../fixtures/simplecnn_grad.safetensors', import.meta.url).pathname;
    const r = await webddp('train', '--resume', file);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--resume .* is a file: --resume continues a checkpoint directory.* use --init-from FILE/);
    const both = await webddp('train', '--resume', 'a', '--resume-from', 'b');
    expect(both.err).toMatch(/--resume and --resume-from: give one/);
    const init = await webddp('train', '--resume', 'a', '--init-from', file);
    expect(init.err).toMatch(/not with --init-from/);
  });

  it('an unknown command suggests the nearest', async () => {
    const r = await webddp('trian');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/unknown command 'trian' \(did you mean train\?\)/);
  });
});
