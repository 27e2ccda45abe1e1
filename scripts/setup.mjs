#!/usr/bin/env node
// `npm run setup`: installs what npm cannot, then the npm dependencies if they are missing.
//  * Debian's `chromium` (headless browser tests; it also ships the SwiftShader Vulkan driver,
//    /usr/lib/chromium/vk_swiftshader_icd.json, that Dawn uses on a machine without a GPU);
//  * `libvulkan1`, the Vulkan loader that Dawn (the `webgpu` npm package) opens;
//  * `fonts-wqy-microhei`, a Chinese font, so the page's Chinese text renders in headless Chromium;
//  * `python3-torch` (with numpy), PyTorch on the CPU, which test/gpu/export-torchrun.test.ts runs the
//    exported torchrun project with (skipped here when some python3 on PATH already imports torch);
//  * Mesa's lavapipe, the second software Vulkan driver (`--adapter lavapipe`), in the checkout's
//    .lavapipe/ (scripts/lavapipe.mjs: Debian 12's own Mesa is too old for Dawn).
// Stops with a clear message where it cannot install them.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ensureLavapipe } from './lavapipe.mjs';

const need = [];
const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
if (!chromium) need.push('chromium');
if (!existsSync('/usr/lib/chromium/vk_swiftshader_icd.json') && !need.includes('chromium')) need.push('chromium');
if (!hasVulkanLoader()) need.push('libvulkan1');
if (!hasChineseFont()) need.push('fonts-wqy-microhei');
if (!hasTorch()) need.push('python3-torch');

function hasTorch() {
  return ['python3', '/usr/bin/python3'].some(
    (py) => spawnSync(py, ['-c', 'import torch, numpy'], { stdio: 'ignore' }).status === 0,
  );
}

function hasChineseFont() {
  const r = spawnSync('fc-list', [':lang=zh', 'family'], { encoding: 'utf8' });
  if (r.status === 0) return r.stdout.trim().length > 0;
  return existsSync('/usr/share/fonts/truetype/wqy/wqy-microhei.ttc');
}

function hasVulkanLoader() {
  try {
    return execFileSync('/sbin/ldconfig', ['-p'], { encoding: 'utf8' }).includes('libvulkan.so.1');
  } catch {
    return ['/usr/lib/x86_64-linux-gnu/libvulkan.so.1', '/usr/lib/aarch64-linux-gnu/libvulkan.so.1'].some((p) =>
      existsSync(p),
    );
  }
}

function fail(msg) {
  console.error(`\nsetup: ${msg}\n`);
  process.exit(1);
}

function run(cmd, args) {
  console.log(`setup: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  if (r.status !== 0) fail(`'${cmd} ${args.join(' ')}' failed (exit ${r.status ?? r.signal}).`);
}

if (need.length > 0) {
  const manual = `sudo apt-get update && sudo apt-get install -y ${need.join(' ')}`;
  if (process.platform !== 'linux') {
    fail(
      `missing ${need.join(', ')}. On ${process.platform} install Chromium yourself and set WEBDDP_CHROMIUM to its path; Node + Dawn uses your GPU directly.`,
    );
  }
  if (!existsSync('/usr/bin/apt-get'))
    fail(
      `missing ${need.join(', ')} and this is not a Debian-like system (no apt-get). Install them with your package manager.`,
    );
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = !root && spawnSync('sudo', ['-n', 'true']).status === 0;
  if (!root && !sudo)
    fail(`missing ${need.join(', ')}; installing them needs root. Run:\n  ${manual}\nthen run 'npm run setup' again.`);
  const pre = root ? [] : ['-n'];
  const exe = root ? 'apt-get' : 'sudo';
  const apt = root ? [] : ['apt-get'];
  run(exe, [...pre, ...apt, 'update', '-qq']);
  run(exe, [...pre, ...apt, 'install', '-y', '-qq', '--no-install-recommends', ...need]);
} else {
  console.log(`setup: system packages present (${chromium}, SwiftShader ICD, libvulkan.so.1, a Chinese font, PyTorch)`);
}

await ensureLavapipe(fail);

if (!existsSync('node_modules/.package-lock.json')) {
  run('npm', ['ci', '--no-audit', '--no-fund']);
}
console.log('setup: done');
