// The report as JUnit XML for CI systems (GitHub Actions reporters, GitLab, Jenkins): one
// <testsuite> per group and one <testcase> per check, with <failure> carrying the detail line and
// <skipped> the reason; times in seconds.
import { CHECK_GROUPS, countRows, type CheckReport } from './result.ts';

/** Text for an XML attribute or element: the five special characters escaped, control characters dropped. */
export function xmlEscape(s: string): string {
  return (
    s
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

const sec = (ms: number) => (ms / 1000).toFixed(3);

export function toJUnit(r: CheckReport): string {
  const a = r.device.adapter;
  const adapter = `${a.description || a.device || a.architecture} (${a.vendor}${a.fallback ? ', software' : ''})`;
  const suites = CHECK_GROUPS.flatMap((g) => {
    const rows = r.rows.filter((x) => x.group === g);
    if (rows.length === 0) return [];
    const c = countRows(rows);
    const ms = rows.reduce((t, x) => t + x.ms, 0);
    const cases = rows.map((x) => {
      const open = `    <testcase classname="webddp.check.${g}" name="${xmlEscape(x.name)}" time="${sec(x.ms)}"`;
      if (x.status === 'pass')
        return `${open}>\n      <system-out>${xmlEscape(x.detail)}</system-out>\n    </testcase>`;
      if (x.status === 'skip') return `${open}>\n      <skipped message="${xmlEscape(x.detail)}"/>\n    </testcase>`;
      return `${open}>\n      <failure message="${xmlEscape(x.detail)}">${xmlEscape(x.detail)}</failure>\n    </testcase>`;
    });
    return [
      `  <testsuite name="webddp check: ${g}" tests="${rows.length}" failures="${c.fail}" errors="0" skipped="${c.skip}" time="${sec(ms)}">`,
      `    <properties>\n      <property name="adapter" value="${xmlEscape(adapter)}"/>\n      <property name="runtime" value="${xmlEscape(r.runtime)}"/>\n      <property name="webddp" value="${xmlEscape(r.version)}"/>\n    </properties>`,
      ...cases,
      '  </testsuite>',
    ];
  });
  const c = r.counts;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="webddp check" tests="${r.rows.length}" failures="${c.fail}" errors="0" skipped="${c.skip}" time="${r.seconds.toFixed(3)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
