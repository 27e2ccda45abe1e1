// `webddp check --help`.
export const checkUsage = `webddp check [--adapter auto|gpu|swiftshader] [--device NAME] [--quick] [--only GROUPS] [--kernels NAMES]
             [--tuning JSON] [--shaders DIR] [--json] [--junit FILE]
             [--baseline FILE [--max-slowdown PCT]] [--save-baseline FILE]
webddp check --runtime chromium [--browser PATH] [--browser-flags="..."] [--adapter auto|gpu|swiftshader] [same options]

GPU regression testing: does this build, on this adapter (driver, browser, WebGPU implementation),
still compute what PyTorch computes, and as fast as before? Runs, on one adapter:
  kernels  every WGSL kernel against the float64 CPU reference on odd shapes, with the override
           constants (workgroup sizes, tiles) this adapter's tuning selects; kernels the tuning does
           not pick for the model are checked too and marked so
  model    SimpleCNN against PyTorch (fixtures/simplecnn_grad.safetensors): logits, loss, every
           gradient, two steps of SGD, Adam and AdamW, clip_grad_norm_ (rtol 1e-4, atol 1e-5)
  ddp      a 2-worker DistributedDataParallel run against PyTorch's (fixtures/ddp_world2.safetensors):
           final parameters, each rank's DistributedSampler shard and per-step losses
  equivalence  ddp, zero1, zero2, zero3, dp and balanced-dp on 4 ranks (batch 2 each; balanced-dp
           1 + 3 + 2 + 2) and 2 micro-batches of 4 on one worker, 3 SGD steps, each against one
           worker at batch 8 from the same initial parameters and samples: the largest parameter
           difference, relative to the largest change, within 3 x n x 2^-24 (n = 8 x 32 x 32 + 4
           terms, the longest float32 sum of a step); --quick: 2 ranks of 4, 2 steps
  learn    one epoch on 2048 records of the built-in synthetic dataset (batch 32, SGD) must reach
           test accuracy > 30% (chance: 10%); --quick: 1024 records at lr 0.05, > 25%
  bench    one worker's training throughput (images/s) per batch size: on a GPU batches 128, 512,
           2048 (30 steps after 5 warm-up), on a software adapter 8 and 32 (3 after 1);
           --quick: 128 (10 after 3), software 4 (2 after 1)
Prints one line per check and exits 0 only when every check holds (one that checks nothing fails).

  --runtime node|chromium  Node with Dawn (default), or a headless Chromium/Chrome (WebGPU in a page,
                 ranks in module workers; the browser's own WebGPU stack is what gets checked)
  --adapter      node: auto (the GPU, else SwiftShader), gpu (the high-performance GPU only) or
                 swiftshader. chromium: auto and swiftshader allow Chromium's SwiftShader, gpu asks for
                 the high-performance adapter and fails on a software one
  --device NAME  node: the adapter whose name contains NAME (Dawn cannot tell identical GPUs apart)
  --browser PATH chromium: the browser (default WEBDDP_CHROMIUM, /usr/bin/chromium, google-chrome)
  --browser-flags="..."  extra browser flags, space-separated; write them with '=' since they
                 begin with dashes, e.g. --browser-flags="--use-angle=vulkan --enable-features=Vulkan
                 --ignore-gpu-blocklist" for a GPU on Linux
  --quick        shorter learning and equivalence checks and bench (CI on a software adapter)
  --only GROUPS  comma-separated subset of kernels,model,ddp,equivalence,learn,bench
  --kernels NAMES  only the kernels whose name contains one of NAMES (comma-separated)
  --tuning JSON  the kernel tuning over the adapter's (as webddp bench --tuning; default: WEBDDP_TUNING)
  --shaders DIR  node: DIR/<kernel>.wgsl replaces the bundled kernel in the kernel and model checks
                 (check a modified kernel before building it in)
  --json         print the report as one JSON object instead of the table
  --junit FILE   also write JUnit XML (one testcase per check) for CI systems
  --save-baseline FILE  write this run's throughput (images/s per bench row) as a baseline
  --baseline FILE  fail every bench row slower than the baseline by more than --max-slowdown, and a
                 baseline from another adapter
  --max-slowdown PCT  percent, default 10 (throughput on a GPU varies by about 10% between runs)
Exit codes: 0 all checks hold, 1 a check failed, 2 bad usage.`;
