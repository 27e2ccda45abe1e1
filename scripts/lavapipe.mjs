#!/usr/bin/env node
// Mesa's lavapipe, the second software Vulkan driver the tests run WebGPU on (`--adapter lavapipe`),
// put in the checkout's .lavapipe/ (libvulkan_lvp.so and lvp_icd.json naming it by absolute path)
// without touching the system's Vulkan drivers. Debian 12's own Mesa (22.3) lacks the
// shaderUniform*ArrayDynamicIndexing features Dawn requires, so Dawn finds no adapter on it; the
// Mesa of bookworm-backports (25.x) gives one, with shader-f16 and subgroups. The package is taken
// from deb.debian.org and checked along Debian's chain of trust: the InRelease file's signature
// (gpgv, debian-archive-keyring), the SHA-256 of the package index it lists, the SHA-256 of the
// .deb the index lists. Run by `npm run setup`; `node scripts/lavapipe.mjs` alone does the same.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const MIRROR = 'http://deb.debian.org/debian';
const SUITE = 'bookworm-backports';
const KEYRING = '/usr/share/keyrings/debian-archive-keyring.gpg';
const PACKAGE = 'mesa-vulkan-drivers';
/** Debian's architecture and multiarch library folder for this Node's CPU. */
const ARCH = { x64: ['amd64', 'x86_64-linux-gnu'], arm64: ['arm64', 'aarch64-linux-gnu'] }[process.arch];

export const LAVAPIPE_DIR = resolve('.lavapipe');

class LavapipeError extends Error {}

async function get(url) {
  let res;
  try {
    res = await fetch(url);
  } catch (e) {
    throw new LavapipeError(`cannot reach ${url}: ${e.cause?.code ?? e.message}`);
  }
  if (!res.ok) throw new LavapipeError(`${url}: HTTP ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

const sha256 = (b) => createHash('sha256').update(b).digest('hex');

function expectHash(what, bytes, want) {
  const got = sha256(bytes);
  if (got !== want) throw new LavapipeError(`${what}: SHA-256 ${got}, the signed index says ${want}`);
}

/** The stanza of `name` in a Debian Packages file, as field -> value. */
function stanza(packages, name) {
  for (const block of packages.split(/\n\n+/)) {
    const fields = Object.fromEntries(
      block
        .split('\n')
        .filter((l) => /^[A-Za-z0-9-]+:/.test(l))
        .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
    );
    if (fields.Package === name) return fields;
  }
  throw new LavapipeError(`${name} is not in ${SUITE}'s package index`);
}

function isBookworm() {
  try {
    return /^VERSION_CODENAME=bookworm$/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

/** Fetches, checks and unpacks lavapipe into .lavapipe/; returns the Mesa version. */
export async function installLavapipe(log = console.log) {
  if (!ARCH) throw new LavapipeError(`no Debian package for this CPU (${process.arch})`);
  const [arch, multiarch] = ARCH;
  for (const tool of ['gpgv', 'xz', 'dpkg-deb'])
    if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0)
      throw new LavapipeError(`'${tool}' is missing (Debian's gpgv, xz-utils and dpkg packages provide it)`);
  if (!existsSync(KEYRING)) throw new LavapipeError(`${KEYRING} is missing (package debian-archive-keyring)`);
  const work = mkdtempSync(join(tmpdir(), 'webddp-lavapipe-'));
  try {
    const inRelease = join(work, 'InRelease');
    writeFileSync(inRelease, await get(`${MIRROR}/dists/${SUITE}/InRelease`));
    const verified = spawnSync('gpgv', ['--keyring', KEYRING, '--output', join(work, 'Release'), inRelease], {
      encoding: 'utf8',
    });
    if (verified.status !== 0)
      throw new LavapipeError(`the signature of ${SUITE}'s InRelease does not verify: ${verified.stderr.trim()}`);
    const release = readFileSync(join(work, 'Release'), 'utf8');
    const indexPath = `main/binary-${arch}/Packages.xz`;
    const sums = release.slice(release.indexOf('\nSHA256:'));
    const line = sums.split('\n').find((l) => l.trim().endsWith(` ${indexPath}`));
    if (!line) throw new LavapipeError(`${SUITE}'s Release lists no ${indexPath}`);
    const indexXz = await get(`${MIRROR}/dists/${SUITE}/${indexPath}`);
    expectHash(indexPath, indexXz, line.trim().split(/\s+/)[0]);
    const packages = execFileSync('xz', ['-dc'], { input: indexXz, maxBuffer: 1 << 30 }).toString('utf8');
    const pkg = stanza(packages, PACKAGE);
    log(`setup: ${PACKAGE} ${pkg.Version} from ${SUITE} (${(Number(pkg.Size) / 2 ** 20).toFixed(1)} MiB)`);
    const deb = await get(`${MIRROR}/${pkg.Filename}`);
    expectHash(pkg.Filename, deb, pkg.SHA256);
    const debFile = join(work, 'mesa.deb');
    writeFileSync(debFile, deb);
    const root = join(work, 'root');
    execFileSync('dpkg-deb', ['-x', debFile, root]);
    const lib = join(root, 'usr', 'lib', multiarch, 'libvulkan_lvp.so');
    if (!existsSync(lib)) throw new LavapipeError(`${pkg.Filename} has no usr/lib/${multiarch}/libvulkan_lvp.so`);
    // written beside, then swapped in: a failed update leaves the previous driver in place
    const next = `${LAVAPIPE_DIR}.new`;
    rmSync(next, { recursive: true, force: true });
    mkdirSync(next);
    copyFileSync(lib, join(next, 'libvulkan_lvp.so'));
    const icd = JSON.parse(readFileSync(join(root, 'usr', 'share', 'vulkan', 'icd.d', 'lvp_icd.json'), 'utf8'));
    icd.ICD.library_path = join(LAVAPIPE_DIR, 'libvulkan_lvp.so');
    writeFileSync(join(next, 'lvp_icd.json'), `${JSON.stringify(icd, null, 2)}\n`);
    writeFileSync(join(next, 'VERSION'), `${PACKAGE} ${pkg.Version} (${SUITE}, ${arch})\n`);
    rmSync(LAVAPIPE_DIR, { recursive: true, force: true });
    renameSync(next, LAVAPIPE_DIR);
    return pkg.Version;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** What setup does: keeps a present .lavapipe/, else installs it; on a system other than Debian 12, says what to do. */
export async function ensureLavapipe(fail, log = console.log) {
  if (existsSync(join(LAVAPIPE_DIR, 'lvp_icd.json')) && existsSync(join(LAVAPIPE_DIR, 'libvulkan_lvp.so'))) {
    log(`setup: lavapipe present (${readFileSync(join(LAVAPIPE_DIR, 'VERSION'), 'utf8').trim()})`);
    return;
  }
  if (!isBookworm()) {
    log(
      "setup: lavapipe not fetched (not Debian 12): install your distribution's Mesa Vulkan drivers (Mesa 24 or " +
        'later) and set WEBDDP_LAVAPIPE_ICD to its lvp_icd.json; tests on lavapipe are skipped until then',
    );
    return;
  }
  try {
    await installLavapipe(log);
    log(`setup: lavapipe in ${LAVAPIPE_DIR}`);
  } catch (e) {
    if (e instanceof LavapipeError) fail(`cannot install Mesa's lavapipe from ${SUITE}: ${e.message}`);
    throw e;
  }
}

if (import.meta.url === `file://${process.argv[1]}`)
  await ensureLavapipe((msg) => {
    console.error(`\nlavapipe: ${msg}\n`);
    process.exit(1);
  });
