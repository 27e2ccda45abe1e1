// Node only: the files and directories a command's flags name for it to write (`train --save`,
// `--trace`, `init --out`, `check --junit`, `--save-baseline`, `parity --out`, `export-torchrun
// --out`), checked through src/input/path-node.ts before any work, so a run that would end unable to
// write its result is refused at once, naming the flag (exit 2), and loses nothing.
import { checkOutputDirectory, checkOutputFile, PathError } from '../input/path-node.ts';
import { UsageError } from './command.ts';

/** A path that cannot be used, as a usage error (exit 2, no stack). */
export async function asUsage<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof PathError) throw new UsageError(e.message);
    throw e;
  }
}

/** `path`, given to `flag`, may be written as an output file; otherwise a usage error naming the flag. */
export const checkOutputFileFlag = (flag: string, path: string): Promise<string> =>
  asUsage(() => checkOutputFile(path, flag));

/** `path`, given to `flag`, may become an output directory (absent or empty); otherwise a usage error naming the flag. */
export const checkOutputDirectoryFlag = (flag: string, path: string): Promise<string> =>
  asUsage(() => checkOutputDirectory(path, flag));
