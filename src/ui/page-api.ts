// What the page exposes on window.webddpPage: the numbers its views draw, as plain data, for the
// browser console and for the end-to-end tests (which assert on the page's own data, not on pixels).
import type { MemorySnapshot } from '../gpu/memory.ts';
import type { StoredCheckpoint } from '../checkpoint/dir-idb.ts';
import type { Mode } from '../config.ts';
import type { EpochPoint } from './views/history.ts';

export interface CompareSummary {
  readonly mode: Mode;
  readonly workers: number;
  readonly steps: number;
  readonly error?: string;
  /** Every worker's max_memory_allocated over the run, bytes. */
  readonly peaks: readonly number[];
  readonly memory: readonly MemorySnapshot[];
  /** Worker 0's peak over the mean peak of the others (1: even). */
  readonly imbalance: number;
}

export interface PageApi {
  /** 'idle' | a RunState of the main run. */
  state(): string;
  /** Rank 0's loss at every step of the current (or last) run. */
  losses(): number[];
  epochs(): EpochPoint[];
  /** The latest memory snapshot of every worker. */
  memory(): MemorySnapshot[];
  /** The last comparison's results, one per mode. */
  compare(): CompareSummary[];
  /** Rank 0's log lines. */
  log(): string[];
  /** The open lesson of the guided path, and whether its last run reached the lesson's point. */
  lesson(): { id: string | null; reached: boolean | null };
  /** SHA-256 of rank 0's parameters at the end of the last finished run (float32 bytes, state_dict order). */
  params(): string | null;
  /** The newest checkpoint stored in this browser (null: none). */
  checkpoint(): StoredCheckpoint | null;
}

declare global {
  interface Window {
    webddpPage?: PageApi;
  }
}
