#!/usr/bin/env node
// Where a step's time goes, from a `webddp train --trace FILE` trace: per rank, the mean over the
// steps after the first (which also compiles the shaders) of the step's wall time, the time the
// GPU was busy (compute lane), communication and the part of it no GPU work hid, data and upload,
// and the spans that took longest. Usage: node bench/trace-summary.mjs TRACE.json [--from STEP]
/* global console, process */
import { readFileSync } from 'node:fs';

/** @typedef {import('../src/trace/chrome.ts').ChromeTrace} ChromeTrace */
/** @typedef {import('../src/trace/chrome.ts').TraceEvent} TraceEvent */
/** @typedef {[number, number]} Interval */

const [file, ...rest] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/trace-summary.mjs TRACE.json [--from STEP]');
  process.exit(2);
}
const from = rest[0] === '--from' ? Number(rest[1]) : 1;
// JSON.parse is `any` to the linter here (no JSDoc cast survives in .mjs): the file is a ChromeTrace.
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
const trace = /** @type {ChromeTrace} */ (JSON.parse(readFileSync(file, 'utf8')));
/** @param {TraceEvent} e */
const durOf = (e) => e.dur ?? 0;
/** @param {TraceEvent} e */
const stepOf = (e) => Number(e.args?.['step'] ?? -1);
const events = trace.traceEvents.filter((e) => e.ph === 'X');
/** @param {Interval[]} iv @returns {Interval[]} */
const union = (iv) => {
  /** @type {Interval[]} */
  const out = [];
  for (const [a, b] of [...iv].sort((x, y) => x[0] - y[0])) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
};
/** @param {Interval[]} iv */
const len = (iv) => iv.reduce((s, [a, b]) => s + b - a, 0);
/** @param {Interval[]} a @param {Interval[]} b */
const overlap = (a, b) => {
  let c = 0;
  for (const [a0, a1] of a) for (const [b0, b1] of b) c += Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
  return c;
};
const pids = [...new Set(events.map((e) => e.pid))].sort((a, b) => a - b);
console.log(
  `${file}: ${trace.otherData['mode'] ?? '?'} on ${trace.otherData['workers'] ?? pids.length} worker(s), steps >= ${from}`,
);
for (const pid of pids) {
  const mine = events.filter((e) => e.pid === pid);
  const steps = mine.filter((e) => e.cat === 'step' && /^step \d+$/.test(e.name) && stepOf(e) >= from);
  const acc = { step: 0, gpu: 0, comm: 0, exposed: 0, data: 0, upload: 0, gapBefore: 0 };
  /** @type {Map<string, number>} */
  const byName = new Map();
  /** @type {number | null} */
  let prevEnd = null;
  for (const st of steps) {
    const [t0, t1] = [st.ts, st.ts + durOf(st)];
    /** @param {TraceEvent} e @returns {Interval} */
    const clip = (e) => [Math.max(t0, e.ts), Math.min(t1, e.ts + durOf(e))];
    /** @param {TraceEvent} e */
    const inside = (e) => e.ts < t1 && e.ts + durOf(e) > t0;
    /** @param {string} name */
    const lane = (name) =>
      union(
        mine
          .filter((e) => e.cat === name && inside(e))
          .map(clip)
          .filter(([a, b]) => b > a),
      );
    const gpu = lane('compute');
    const comm = lane('comm');
    acc.step += durOf(st);
    acc.gpu += len(gpu);
    acc.comm += len(comm);
    acc.exposed += len(comm) - overlap(comm, gpu);
    acc.data += len(union(mine.filter((e) => e.name === 'data' && inside(e)).map(clip)));
    acc.upload += len(union(mine.filter((e) => e.name === 'upload' && inside(e)).map(clip)));
    if (prevEnd !== null) acc.gapBefore += t0 - prevEnd;
    prevEnd = t1;
    for (const e of mine.filter((x) => stepOf(x) === stepOf(st) && x.cat !== 'step')) {
      const key = `${e.cat}: ${e.name.replace(/\d+/g, '#')}`;
      byName.set(key, (byName.get(key) ?? 0) + durOf(e));
    }
  }
  const n = Math.max(1, steps.length);
  /** @param {number} us */
  const ms = (us) => (us / n / 1000).toFixed(1);
  console.log(
    `rank ${pid}: ${steps.length} steps, per step: wall ${ms(acc.step)} ms | GPU busy ${ms(acc.gpu)} | comm ${ms(acc.comm)} (exposed ${ms(acc.exposed)}) | data ${ms(acc.data)} | upload ${ms(acc.upload)} | between steps ${ms(steps.length > 1 ? (acc.gapBefore * n) / (n - 1) : 0)}`,
  );
  const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 12);
  for (const [k, us] of top) console.log(`    ${k.padEnd(40)} ${ms(us).padStart(8)} ms/step`);
}
