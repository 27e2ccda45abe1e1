// English words of the checkpoint and dataset panels, and the page shown without WebGPU.
import { num } from '../numbers.ts';

export const enPanels = {
  files: {
    tooLarge: (name: string, size: string, what: string, max: string) =>
      `${name} is ${size}: too large for ${what} (at most ${max}). Nothing was read.`,
    wrongType: (name: string, what: string, expected: string) =>
      `${name} is not ${what} (expected ${expected}). Nothing was read.`,
    kinds: {
      deepspeed: 'a DeepSpeed config',
      stateDict: 'a model state_dict',
      archive: 'a CIFAR-10 archive',
      loose: 'a CIFAR-10 batch file',
    },
  },
  checkpoint: {
    legend: 'Model checkpoint',
    startFrom: 'Start from',
    clear: 'Use seeded init',
    download: 'Download model (.safetensors)',
    hint: 'PyTorch: `model.load_state_dict(load_file(path))` with `safetensors.torch`.',
    seeded: 'Runs start from torch.manual_seed(seed).',
    loaded: (name: string, n: number, width: number) =>
      `Runs start from ${name}: ${num(n)} parameters (width ${width}).`,
    refused: (message: string) => `${message}. Runs start from torch.manual_seed(seed).`,
    downloaded: (mib: string) => `Downloaded ${mib} MiB.`,
  },
  life: {
    legend: 'Checkpoints and restarts',
    labels: {
      checkpoints: 'Save checkpoints in this browser',
      checkpointEvery: 'Checkpoint every N steps',
      keep: 'Keep the newest',
      maxRestarts: 'Max restarts',
    },
    hints: {
      checkpoints:
        'rank 0 saves the model, the optimizer state and where the run is (IndexedDB) at each epoch’s end and where you stop (an fp16 run: the fp32 master weights, the loss scale and the skipped steps too)',
      checkpointEvery: '0: at each epoch’s end (and where a run is stopped) only',
      keep: 'older checkpoints are deleted once a new one is stored',
      maxRestarts:
        'like torchrun --max-restarts: when a worker fails, every worker is closed and fresh ones continue from the last checkpoint',
    },
    range: (label: string, min: number, max: number) => `${label}: a whole number from ${min} to ${max}`,
    resume: 'Resume from the last checkpoint',
    download: 'Download the last checkpoint',
    clear: 'Delete the checkpoints',
    export: 'Export for torchrun',
    exportHint:
      '**Export for torchrun** turns the last checkpoint into a PyTorch project (one `.tar`, what `webddp export-torchrun` writes): `train.py` (DistributedDataParallel with this run’s sampler, optimizer and schedule, starting from the checkpoint), its helper modules, a README with the `torchrun` commands, and `ds_config.json` for a ZeRO run. DataParallel and fp16 runs cannot be continued that way and are refused.',
    exportNone: 'Export for torchrun: no checkpoint yet. Run with checkpoints on first.',
    exportRefusedMode: (mode: string) =>
      `Export for torchrun: the last checkpoint is of a ${mode} run. Device 0 reads, splits and sums one global batch there, which no torchrun script (one process per rank) continues; export a DDP or ZeRO run.`,
    exported: (file: string, files: number, workers: number) =>
      `Exported ${file} (${files} files). Unpack it and run: torchrun --standalone --nproc_per_node ${workers} train.py (its README.md says what to read first).`,
    downloadHint:
      'The download is three files, `model.safetensors`, `optimizer.safetensors` and `trainer.json`: put them in one folder and continue with `webddp train --resume FOLDER`.',
    none: 'No checkpoint is stored in this browser.',
    newest: (g: number, e: number, s: number, n: number, mode: string, w: number, mib: string) =>
      `Last checkpoint: global step ${g} (epoch ${e}, batch ${s} of ${n}), ${mode} on ${w} worker(s), ${mib} MiB.`,
    refused: (message: string) => `Cannot use the checkpoint: ${message}`,
    datasetHint: 'choose it in the Dataset panel (import it first if this browser does not hold it)',
    downloaded: (g: number) => `Downloaded the checkpoint of global step ${g} (3 files).`,
  },
  dataset: {
    legend: 'Dataset',
    trainOn: 'Train on',
    synthetic: 'Built-in synthetic',
    syntheticText: '10 classes of shapes, stripes and colour patterns, generated in your browser, works offline.',
    syntheticNote: 'Not generated yet: made when you start training.',
    cifar: 'CIFAR-10',
    cifarText: '60 000 photos in 10 classes: the dataset of the PyTorch tutorials.',
    cifarNote: 'Not imported yet: import it below.',
    importTitle: 'Import CIFAR-10',
    hint: (page: string) =>
      `Get \`cifar-10-binary.tar.gz\` (163 MB) from the ${page}. It is checked as it streams and stored in IndexedDB.`,
    cifarPage: 'CIFAR-10 page',
    dropText: 'Drop **cifar-10-binary.tar.gz**, or the `.bin` files with `batches.meta.txt` (or their folder) here',
    choose: 'Choose files…',
    urlLabel: 'or from a URL',
    urlImport: 'Import',
    cancel: 'Cancel',
    droppedUnreadable: (e: string) => `Could not read the dropped files: ${e}`,
    unusable: (e: string) => `Stored copy unusable: ${e}`,
    generating: 'Generating the images…',
    cannotGenerate: (e: string) => `Could not generate it: ${e}`,
    from: (d: string) => `from ${d}`,
    importing: (s: string) => `Importing ${s}…`,
    cancelled: 'Import cancelled. The previously stored dataset is unchanged.',
    cancelledByUser: 'cancelled by the user',
    counts: (train: string, test: string) => `${train} training and ${test} test records`,
    noFiles: 'No files were given.',
    bothKinds: (n: number, name: string) =>
      `Give either one cifar-10-binary.tar.gz or the loose .bin files, not both (${n} files, including ${name}).`,
    noUrl: 'Enter the address of cifar-10-binary.tar.gz.',
    notUrl: (t: string) => `"${t}" is not a full URL; it must start with https:// or http://.`,
    badProtocol: (p: string) => `Only http:// and https:// addresses can be imported (this one is ${p}).`,
    oneFile: '1 file',
    nFiles: (n: number) => `${n} files`,
    unchanged: (counts: string, src: string) => `Already stored, nothing changed: ${counts} from ${src}.`,
    imported: (counts: string, src: string) => `Imported ${counts} from ${src}.`,
    ignored: (list: string) => `Ignored (not part of CIFAR-10): ${list}.`,
    notPersisted: 'Persistent storage was not granted: the browser may evict the dataset under storage pressure.',
    failed: (e: string) => `Import failed: ${e}`,
    cors: 'A network error on another site is often CORS: that server must send Access-Control-Allow-Origin. If it does not, download the file and pick or drop it here.',
    untouched: 'The previously stored dataset is unchanged.',
    starting: 'Starting',
    reading: 'Reading and checking',
    committing: 'Committing (swapping in the new dataset)',
    done: 'Done',
    amountOf: (read: string, total: string, pct: number) => `${read} of ${total} (${pct}%)`,
    amountRead: (read: string) => `${read} read`,
    stored: (n: string) => `${n} records stored`,
  },
  nogpu: {
    title: 'webddp: WebGPU is not available',
    kicker: 'webddp · data-parallel training you can see',
    heading: 'This page needs WebGPU',
    missing: 'What is missing: ',
    insecure: (origin: string) =>
      `This page was opened from ${origin}, which is not a secure context, and browsers only offer WebGPU to secure contexts (https:// or http://localhost).`,
    noGpu:
      'This browser does not offer WebGPU here (navigator.gpu is undefined): it is too old, WebGPU is switched off, or not yet enabled on this operating system.',
    requestFailed: (e: string) => `The browser has WebGPU, but asking it for a GPU failed: ${e}`,
    noAdapter:
      'The browser has WebGPU, but it found no usable GPU (requestAdapter() returned null): the GPU or its driver may be blocklisted, or hardware acceleration is switched off.',
    intro:
      'webddp trains a small CNN on your GPU: every Web Worker owns its own WebGPU device and runs hand-written WGSL compute shaders, and the workers average their gradients with a ring all-reduce. Without WebGPU there is nothing to train on, so instead of an empty page, here is how to get it.',
    browsers: 'Use a browser with WebGPU',
    copy: 'Copy this into the address bar',
    chrome: 'Chrome, Edge 113+',
    chromeSteps:
      'On by default on Windows, macOS and ChromeOS (Android: 121+). Check that hardware acceleration is on (Settings → System) and look at {chrome://gpu}.',
    linux: 'Chrome on Linux',
    linuxSteps:
      'Enable {chrome://flags/#enable-unsafe-webgpu} and {chrome://flags/#enable-vulkan}, then restart; or launch it with `--enable-unsafe-webgpu`.',
    firefox: 'Firefox',
    firefoxSteps:
      '141+ on Windows. Elsewhere use Firefox Nightly and set `dom.webgpu.enabled` to true in {about:config}.',
    safari: 'Safari',
    safariSteps:
      'Safari 26+ (macOS, iOS and iPadOS 26). Before that: Safari Technology Preview, with WebGPU on under Develop → Feature Flags.',
    secure: 'Open the page from a secure context',
    secureText:
      'Browsers only offer WebGPU to pages served over `https://` or from `http://localhost`. `npm start` serves `http://localhost:5173`; opening it through a LAN address such as `http://192.168.1.20:5173` or from a `file://` URL does not count as secure.',
    cli: 'Or train from the command line',
    cliText:
      'The same engine runs in Node through Dawn, with one worker thread and one device per rank (falling back to the SwiftShader CPU adapter when there is no GPU):',
    retry: 'Try again',
    more: 'More: ',
    caniuse: 'Can I use WebGPU',
    chromeDocs: 'WebGPU on Chrome for Developers',
  },
};
