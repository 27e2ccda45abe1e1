// The report as a readable table (one line per check: status, group, name, time, detail), a
// summary line, and as one JSON object (--json).
import type { CheckReport, CheckRow } from './result.ts';

const MARK = { pass: 'ok', fail: 'FAIL', skip: 'skip' } as const;

/** One line per row (the CLI prints each as it is decided). */
export function formatRow(r: CheckRow): string {
  return `${MARK[r.status].padEnd(4)}  ${r.group.padEnd(7)}  ${r.name}  (${(r.ms / 1000).toFixed(2)} s)${r.status === 'pass' && r.group === 'kernels' ? '' : `: ${r.detail}`}`;
}

function formatAdapter(r: CheckReport): string {
  const a = r.device.adapter;
  const arch = a.architecture && !(a.fallback && a.architecture === 'software') ? `, ${a.architecture}` : '';
  return `${a.description || a.device || a.architecture} (${a.vendor}${arch}${a.fallback ? ', software' : ''})`;
}

export function formatReport(r: CheckReport): string {
  const head = ['status', 'group', 'check', 'time', 'detail'];
  const body = r.rows.map((x) => [
    MARK[x.status],
    x.group,
    x.name,
    `${(x.ms / 1000).toFixed(2)} s`,
    x.status === 'pass' && x.group === 'kernels' ? '' : x.detail,
  ]);
  const w = head.map((h, i) =>
    Math.min(i === 2 ? 90 : 999, Math.max(h.length, ...body.map((b) => (b[i] ?? '').length))),
  );
  const line = (c: string[]) =>
    c
      .map((x, i) => (i === 3 ? x.padStart(w[i] ?? 0) : i === 4 ? x : x.padEnd(w[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [
    `webddp ${r.version} check on ${formatAdapter(r)}, ${r.runtime}`,
    '',
    line(head),
    ...body.map(line),
    '',
    formatSummary(r),
  ].join('\n');
}

/** The verdict and the counts, one line (after the rows the CLI streamed). */
export function formatSummary(r: CheckReport): string {
  const c = r.counts;
  return `${r.ok ? 'check OK' : 'check FAILED'}: ${c.pass} passed, ${c.fail} failed, ${c.skip} skipped (${r.seconds.toFixed(1)} s) on ${formatAdapter(r)}, ${r.runtime}`;
}
