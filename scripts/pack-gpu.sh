#!/usr/bin/env bash
# Packs what a bare Linux x86-64 GPU machine (no Node.js, no npm registry) needs to run the webddp
# CLI on its GPU through Dawn, into .gpu/ (git-ignored): the CLI bundle (dist-cli), the `webgpu`
# package's JS and its linux-x64 dawn.node, and, where this workplace's ../shared/gpu/pack.sh
# exists, a Node binary and the Vulkan loader .debs. On the GPU machine:
#   source .gpu/remote.sh && bash .gpu/run.sh bench --adapter gpu
set -euo pipefail
root=$(git rev-parse --show-toplevel); cd "$root"
npx vite build -c vite.cli.config.ts
if [ -f ../shared/gpu/pack.sh ]; then bash ../shared/gpu/pack.sh; else mkdir -p .gpu; fi
rm -rf .gpu/cli .gpu/node_modules && mkdir -p .gpu/cli .gpu/node_modules/webgpu/dist/linux-x64
cp -r dist-cli/. .gpu/cli/
# webddp check reads the PyTorch fixtures from the package root, which is .gpu/ there (a link: the
# repository's fixtures/ travels with the working tree).
rm -rf .gpu/fixtures && ln -s ../fixtures .gpu/fixtures
cp node_modules/webgpu/index.js node_modules/webgpu/package.json .gpu/node_modules/webgpu/
printf '%s\n' "import { main } from './webddp.mjs';" 'process.exitCode = await main(process.argv.slice(2));' > .gpu/cli/run.mjs
# The all-reduce benchmark's communication bundle (bench/allreduce.mjs --bundle .gpu/comm.mjs).
node -e "import('vite').then((v) => v.build({ configFile: false, logLevel: 'silent', build: { lib: { entry: 'src/comm/index.ts', formats: ['es'], fileName: () => 'comm.mjs' }, outDir: '.gpu/comm', minify: false, emptyOutDir: true } }))"
cp bench/allreduce.mjs .gpu/allreduce.mjs
cat > .gpu/run.sh <<'RUN'
#!/usr/bin/env bash
# Runs the webddp CLI from .gpu/ (dawn.node is unpacked by remote.sh, or copied from node_modules).
here=$(cd "$(dirname "$0")" && pwd)
dawn=$here/node_modules/webgpu/dist/linux-x64/dawn.node
[ -f "$dawn" ] || cp "$here/dawn.node" "$dawn"
exec node "$here/cli/run.mjs" "$@"
RUN
chmod +x .gpu/run.sh
du -sh .gpu
