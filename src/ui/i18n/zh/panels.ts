// 检查点面板、数据集面板，以及没有 WebGPU 时显示的页面的中文文本（类型取自英文表）。
import type { enPanels } from '../en/panels.ts';
import { zhNum as num } from '../numbers.ts';

export const zhPanels: typeof enPanels = {
  files: {
    tooLarge: (name: string, size: string, what: string, max: string) =>
      `${name} 有 ${size}，作为${what}太大了（最多 ${max}）。没有读取任何内容。`,
    wrongType: (name: string, what: string, expected: string) =>
      `${name} 不是${what}（应为 ${expected}）。没有读取任何内容。`,
    kinds: {
      deepspeed: ' DeepSpeed 配置文件',
      stateDict: '模型 state_dict',
      archive: ' CIFAR-10 压缩包',
      loose: ' CIFAR-10 批次文件',
    },
  },
  checkpoint: {
    legend: '模型检查点',
    startFrom: '从此文件开始',
    clear: '使用种子初始化',
    download: '下载模型（.safetensors）',
    hint: 'PyTorch：用 `safetensors.torch` 执行 `model.load_state_dict(load_file(path))`。',
    seeded: '训练从 torch.manual_seed(seed) 开始。',
    loaded: (name, n, width) => `训练从 ${name} 开始：${num(n)} 个参数（宽度 ${width}）。`,
    refused: (message) => `${message}。训练从 torch.manual_seed(seed) 开始。`,
    downloaded: (mib) => `已下载 ${mib} MiB。`,
  },
  life: {
    legend: '检查点与重启',
    labels: {
      checkpoints: '在本浏览器中保存检查点',
      checkpointEvery: '每 N 步保存一次检查点',
      keep: '保留最新的',
      maxRestarts: '最大重启次数',
    },
    hints: {
      checkpoints:
        'rank 0 在每轮结束时和你停止运行的地方保存模型、优化器状态和训练进度（IndexedDB；fp16 运行还保存 fp32 主权重、损失缩放和跳过的步数）',
      checkpointEvery: '0：只在每轮结束时（以及运行被停止的地方）保存',
      keep: '新的检查点存好之后，更旧的会被删除',
      maxRestarts:
        '与 torchrun --max-restarts 相同：一个 worker 失败时，关闭所有 worker，新启动的 worker 从最后一个检查点继续',
    },
    range: (label, min, max) => `${label}：从 ${min} 到 ${max} 的整数`,
    resume: '从最后一个检查点恢复',
    download: '下载最后一个检查点',
    clear: '删除检查点',
    export: '导出为 torchrun 项目',
    exportHint:
      '**导出为 torchrun 项目** 把最后一个检查点变成一个 PyTorch 项目（一个 `.tar`，内容与 `webddp export-torchrun` 写出的相同）：`train.py`（DistributedDataParallel，带有本次运行的采样器、优化器和学习率调度，从检查点开始）、它的辅助模块、写明 `torchrun` 命令的 README，以及 ZeRO 运行所用的 `ds_config.json`。DataParallel 和 fp16 的运行无法这样继续，会被拒绝。',
    exportNone: '导出为 torchrun 项目：还没有检查点。请先在开启检查点的情况下运行。',
    exportRefusedMode: (mode) =>
      `导出为 torchrun 项目：最后一个检查点来自 ${mode} 运行。那里由设备 0 读取、切分并汇总一个全局批次，没有任何 torchrun 脚本（每个 rank 一个进程）能继续它；请导出 DDP 或 ZeRO 运行。`,
    exported: (file, files, workers) =>
      `已导出 ${file}（${files} 个文件）。解包后运行：torchrun --standalone --nproc_per_node ${workers} train.py（先读它的 README.md）。`,
    downloadHint:
      '下载的是三个文件：`model.safetensors`、`optimizer.safetensors` 和 `trainer.json`。把它们放进同一个文件夹，然后用 `webddp train --resume 文件夹` 继续训练。',
    none: '本浏览器中没有保存检查点。',
    newest: (g, e, s, n, mode, w, mib) =>
      `最后一个检查点：全局第 ${g} 步（第 ${e} 轮，第 ${s}/${n} 批），${mode}，${w} 个 worker，${mib} MiB。`,
    refused: (message) => `无法使用该检查点：${message}`,
    datasetHint: '请在“数据集”面板中选择它（若本浏览器中没有，先导入）',
    downloaded: (g) => `已下载全局第 ${g} 步的检查点（3 个文件）。`,
  },
  dataset: {
    legend: '数据集',
    trainOn: '训练数据',
    synthetic: '内置合成数据',
    syntheticText: '10 类形状、条纹和颜色图案，在浏览器中生成，可离线使用。',
    syntheticNote: '尚未生成：开始训练时生成。',
    cifar: 'CIFAR-10',
    cifarText: '10 个类别的 60 000 张照片：PyTorch 教程使用的数据集。',
    cifarNote: '尚未导入：请在下方导入。',
    importTitle: '导入 CIFAR-10',
    hint: (page) => `从${page}获取 \`cifar-10-binary.tar.gz\`（163 MB）。它在读取的同时被校验，并存入 IndexedDB。`,
    cifarPage: ' CIFAR-10 页面',
    dropText: '把 **cifar-10-binary.tar.gz**，或 `.bin` 文件连同 `batches.meta.txt`（或它们所在的文件夹）拖放到这里',
    choose: '选择文件…',
    urlLabel: '或从 URL 导入',
    urlImport: '导入',
    cancel: '取消',
    droppedUnreadable: (e) => `无法读取拖放的文件：${e}`,
    unusable: (e) => `已存储的副本不可用：${e}`,
    generating: '正在生成图像…',
    cannotGenerate: (e) => `无法生成：${e}`,
    from: (d) => `来源：${d}`,
    importing: (s) => `正在导入 ${s}…`,
    cancelled: '导入已取消。之前存储的数据集保持不变。',
    cancelledByUser: '用户已取消',
    counts: (train, test) => `${train} 条训练记录和 ${test} 条测试记录`,
    noFiles: '没有给出文件。',
    bothKinds: (n, name) =>
      `请只给出一个 cifar-10-binary.tar.gz，或者零散的 .bin 文件，不要两者都给（共 ${n} 个文件，其中包括 ${name}）。`,
    noUrl: '请输入 cifar-10-binary.tar.gz 的地址。',
    notUrl: (t) => `“${t}” 不是完整的 URL；它必须以 https:// 或 http:// 开头。`,
    badProtocol: (p) => `只能导入 http:// 和 https:// 地址（这个是 ${p}）。`,
    oneFile: '1 个文件',
    nFiles: (n) => `${n} 个文件`,
    unchanged: (counts, src) => `已存储，未做改动：${counts}，来自 ${src}。`,
    imported: (counts, src) => `已导入 ${counts}，来自 ${src}。`,
    ignored: (list) => `已忽略（不属于 CIFAR-10）：${list}。`,
    notPersisted: '未获得持久存储权限：存储空间紧张时，浏览器可能会清除该数据集。',
    failed: (e) => `导入失败：${e}`,
    cors: '访问其他网站时出现网络错误，通常是 CORS 造成的：那个服务器必须发送 Access-Control-Allow-Origin。如果它不发送，请下载该文件，再在这里选择或拖放它。',
    untouched: '之前存储的数据集保持不变。',
    starting: '正在开始',
    reading: '正在读取并校验',
    committing: '正在提交（换入新的数据集）',
    done: '完成',
    amountOf: (read, total, pct) => `${read} / ${total}（${pct}%）`,
    amountRead: (read) => `已读取 ${read}`,
    stored: (n) => `已存储 ${n} 条记录`,
  },
  nogpu: {
    title: 'webddp：WebGPU 不可用',
    kicker: 'webddp · 看得见的数据并行训练',
    heading: '本页面需要 WebGPU',
    missing: '缺少什么：',
    insecure: (origin) =>
      `本页面是从 ${origin} 打开的，这不是安全上下文，而浏览器只向安全上下文（https:// 或 http://localhost）提供 WebGPU。`,
    noGpu: '此浏览器在这里不提供 WebGPU（navigator.gpu 未定义）：浏览器太旧、WebGPU 被关闭，或在此操作系统上尚未启用。',
    requestFailed: (e) => `浏览器支持 WebGPU，但请求 GPU 失败：${e}`,
    noAdapter:
      '浏览器支持 WebGPU，但没有找到可用的 GPU（requestAdapter() 返回 null）：GPU 或其驱动可能被列入黑名单，或者硬件加速被关闭。',
    intro:
      'webddp 在你的 GPU 上训练一个小型 CNN：每个 Web Worker 拥有自己的 WebGPU 设备，运行手写的 WGSL 计算着色器，各 worker 用环形 all-reduce 平均梯度。没有 WebGPU 就没有可以训练的设备，所以这里不显示空白页，而是告诉你如何获得它。',
    browsers: '使用支持 WebGPU 的浏览器',
    copy: '把它复制到地址栏',
    chrome: 'Chrome、Edge 113+',
    chromeSteps:
      '在 Windows、macOS 和 ChromeOS 上默认开启（Android：121+）。请确认硬件加速已开启（设置 → 系统），并查看 {chrome://gpu}。',
    linux: 'Linux 上的 Chrome',
    linuxSteps:
      '启用 {chrome://flags/#enable-unsafe-webgpu} 和 {chrome://flags/#enable-vulkan} 后重启；或用 `--enable-unsafe-webgpu` 启动。',
    firefox: 'Firefox',
    firefoxSteps:
      'Windows 上 141+。其他系统请使用 Firefox Nightly，并在 {about:config} 中把 `dom.webgpu.enabled` 设为 true。',
    safari: 'Safari',
    safariSteps:
      'Safari 26+（macOS、iOS 和 iPadOS 26）。更早的版本：使用 Safari Technology Preview，并在 开发 → 功能标志 中开启 WebGPU。',
    secure: '从安全上下文打开页面',
    secureText:
      '浏览器只向通过 `https://` 或 `http://localhost` 提供的页面开放 WebGPU。`npm start` 提供 `http://localhost:5173`；通过局域网地址（如 `http://192.168.1.20:5173`）或 `file://` URL 打开不算安全上下文。',
    cli: '或者在命令行中训练',
    cliText:
      '同一个引擎通过 Dawn 在 Node 中运行，每个 rank 一个工作线程和一个设备（没有 GPU 时退回到 SwiftShader CPU 适配器）：',
    retry: '重试',
    more: '更多：',
    caniuse: 'Can I use WebGPU',
    chromeDocs: 'Chrome 开发者文档中的 WebGPU',
  },
};
