// 每个视图旁的说明、文档链接名称、引导路径框架的中文文本（类型取自英文表）。
import type { enExplain } from '../en/explain.ts';

export const zhExplain: typeof enExplain = {
  explain: {
    training: {
      title: '训练',
      body: [
        '每个 worker 在自己的批次上计算 `SimpleCNN` 的损失；曲线是 rank 0 的，和教程打印的一样。在 DDP 中各 rank 的损失不同，但它们都应用同一个平均后的梯度，所以参数始终保持一致（运行中会检查这一点）。',
        '测试损失和准确率在每轮结束后于测试集上测量。图像/秒是一步中所有 worker 处理的样本数除以该步的实际耗时。学习率是每次优化器更新实际使用的值（调度器会逐步改变它）。',
      ],
    },
    memory: {
      title: '每个 worker 的显存',
      body: [
        '每个 worker 统计它创建的每个 GPU 缓冲区，就像 `torch.cuda.memory_allocated()` 和 `max_memory_allocated()`（浅色条）。',
        '`DataParallel` 只有一个进程：cuda:0 持有模型、分发批次、把所有输出收集回来、计算损失，并拥有唯一的优化器状态。所以设备 0 最先被占满，其他设备则在等待。`BalancedDataParallel` 给设备 0 分一小片（`gpu0_bsz`）来腾出空间；但额外的工作仍在设备 0 上。',
        '`DDP` 每个设备一个进程，每个都是带自己优化器的完整副本。反向传播后用 all-reduce 平均梯度，所以每个副本执行同样的更新：显存是均衡的。',
        '所以 DDP worker 的条比 DataParallel 副本的高：它保存自己的优化器状态（副本没有），而且它的 **通信** 类别里放着 all-reduce 的梯度桶，是梯度字节数的两倍（离开 GPU 的桶和平均后传回的桶），而副本只暂存一个梯度大小的缓冲区，交给设备 0。DataParallel 的 worker 0 持有这一切甚至更多：它才是越堆越高、最先耗尽显存的那个。请按类别读这些条，而不是只看高度。',
        'ZeRO 去掉了 DDP 保留的冗余拷贝：阶段 1 切分优化器状态（每个 rank 更新 1/W 的参数，然后 all-gather）；阶段 2 再切分梯度（用 reduce-scatter 代替 all-reduce；反向传播一次只填满一个小桶）；阶段 3 再切分参数：每一层在前向之前、反向之前各 all-gather 到一个小的工作缓冲区，用完即丢。',
      ],
    },
    compare: {
      title: '对比两种模式',
      body: [
        '用左侧的设置在每种模式下依次训练几步，把每个 worker 实测的显存并排画在同一个刻度上。',
        '4 个 worker 下 DataParallel 对比 DDP，缩小重现了那张著名的 DataParallel 4 卡显存表（38、22、21、20 GB）：worker 0 承担了优化器和收集来的输出。',
        'ZeRO-1、ZeRO-2 和 ZeRO-3 对比 DDP，依次展示优化器状态、梯度、参数缩小到每个 worker 约 1/W。',
      ],
    },
    log: {
      title: 'rank 0 的日志',
      body: [
        '即教程中 `if rank == 0: print(...)` 打印的内容：每隔几个批次一行，每轮一行。只有 rank 0 打印，所以日志不会重复 W 次。',
        '“检查”行比较每个 rank 参数的 SHA-256：DDP 副本必须逐位一致。',
      ],
    },
    ring: {
      title: '环形 all-reduce',
      body: [
        '在 DDP 中，每个 worker 在自己的批次上计算梯度，然后所有 worker 求平均。各 worker 组成一个环：rank r 只发送给 rank r+1。梯度被切成 W 块 `c0`…`c(W-1)`。',
        '**Reduce-scatter**（W−1 步）：每一步每个 rank 把一块传下去，并把收到的那块加到自己的上，最终每个 rank 拥有一块对所有 rank 求和的结果。**All-gather**（再 W−1 步）：求和后的块再绕环一圈。每个 rank 发送的数据量是梯度大小的 2(W−1)/W 倍：无论多少 worker，都不到两倍。',
        '与 PyTorch 的 `DistributedDataParallel` 一样，webddp 在反向传播仍在进行时就归约梯度桶（`bucket_cap_mb`，从最后几层开始），并先除以 W，所以求和即平均。ZeRO 把两半分开执行：对梯度做 reduce-scatter，每个 rank 更新自己的分片，再对参数做 all-gather。',
        '`DataParallel` 没有环：设备 0 上的一个进程分发输入、把参数复制给每个副本、收集输出，并在设备 0 上对梯度求和。',
      ],
    },
    shards: {
      title: '数据分片（DistributedSampler）',
      body: [
        '`DistributedSampler` 给每个 rank 分配数据集中属于它的部分：它用种子为 `seed + epoch` 的生成器打乱所有索引，重复列表开头的索引直到长度能被 W 整除（或用 `drop_last=True` 截掉尾部），rank r 从 r 开始每隔 W 个取一个索引。',
        '每轮之前调用 `sampler.set_epoch(epoch)`，否则每一轮都是同样的顺序。比较两轮，看看有多少索引换到了别的 rank。使用 `shuffle=False` 时，rank r 拿到 r、r+W、r+2W、…。',
        '网格就是数据集，每个索引一个格子，颜色表示在它上面训练的 rank。`DataParallel` 只有一个进程：设备 0 加载每个批次，再分给各设备。',
      ],
    },
    samples: {
      title: '模型看到了什么',
      body: [
        '**rank 0 当前批次**中的几张图像（即它的 `DistributedSampler` 分给它的分片），以及模型此刻对每一张的预测：✓ 正确（只显示一个名称），或 ✗ 错误（显示预测和真实类别）。刚开始时猜测与随机差不多（十分之一）；随着训练会变好。',
        '这些是存储的 32×32 字节，放大显示。模型看到的并不是这样：在这张图之后，每个通道会用 CIFAR-10 的均值和标准差归一化（`transforms.Normalize`），与 PyTorch 教程相同。',
      ],
    },
    timeline: {
      title: '时间线',
      body: [
        '每个 rank 最近几步的实测情况：每层的 GPU 计算（蓝色；优化器为紫色）、通信（橙色：集合通信和等待；金色：写回归约后的桶）、数据（绿色）。刻度线是发送和接收的环上数据块。',
        '在 DDP 中，最先完成的桶在 GPU 仍在计算前面各层的反向传播时就做 all-reduce；剩下没被掩盖的部分就是暴露的通信。下载的是整次运行的 Chrome trace 格式文件，与 `webddp train --trace` 写出的相同。',
        '某个 rank 失败时，各行下方会出现每个 rank 的集合通信飞行记录器：它进入过的集合通信、它当时所在的那一个（在通信行中标为红色）、它最后完成的那一个，以及哪些 rank 落后。',
      ],
    },
    calc: {
      title: 'ZeRO 显存计算器',
      body: [
        'ZeRO 论文中 Ψ 个参数、N 个 rank、每个参数 K 字节优化器状态时每个 rank 的模型状态：混合精度下 DDP 保存 (2 + 2 + K)Ψ；阶段 1 把 K 那部分除以 N，阶段 2 再加上梯度，阶段 3 全部除以 N。',
        '表格用本次运行对 SimpleCNN 实测的字节数核对公式；然后输入一个模型大小（例如 4 × 80 GB 上的 7B），看它的模型状态能否放下。',
      ],
    },
    lessons: {
      title: '引导路径',
      body: [
        '十节短课，每节都是一次准备好的运行：阅读文字，开始运行，看它指出的地方，然后回答问题（答案可以展开）。',
        '每节课的设置都在地址栏中，分享链接即可分享这节课；设置仍然可以修改，用于自由探索。',
      ],
    },
  },
  docs: {
    ddpTutorial: 'DDP 教程',
    ddp: 'DistributedDataParallel',
    dp: 'DataParallel',
    ddpNotDp: '为什么用 DDP 而不是 DP',
    ddpInsteadOfDp: '用 DDP 代替 DataParallel',
    balanced: 'BalancedDataParallel',
    zero: 'DeepSpeed ZeRO',
    zeroOptimizer: 'ZeroRedundancyOptimizer',
    memory: 'memory_allocated',
    ddpNotes: 'DDP 设计说明',
    ddpInternals: 'DDP 内部机制',
    sampler: 'torch.utils.data.distributed.DistributedSampler',
    cifarTutorial: '训练一个分类器（CIFAR-10）',
    perfetto: 'Perfetto',
    zeroPaper: 'ZeRO 论文',
    dsConfig: 'DeepSpeed 配置 JSON',
    torchrun: 'torchrun（弹性启动）',
    distDebug: '调试 torch.distributed（TORCH_DISTRIBUTED_DEBUG）',
    checkpointTutorial: '保存和加载模型',
    amp: '自动混合精度',
    dsFp16: 'DeepSpeed fp16 选项',
    englishOnly: '（英文）',
  },
  lesson: {
    pick: '课程',
    free: '自由探索',
    of: (i, n) => `第 ${i} 课，共 ${n} 课`,
    prev: '上一课',
    next: '下一课',
    load: '载入本课的运行设置',
    loaded: '左侧已是本课的设置；点击“开始”（或修改设置自由探索）。',
    look: '看哪里',
    questions: '问题',
    answer: '答案',
    needs: (feature) =>
      `本课的运行部分需要${feature}，而当前引擎版本还没有。请阅读文字和问题；运行部分留空，而不是伪造。`,
    goTo: (view) => `转到“${view}”视图`,
    point: '已到达本课要点：',
    comparing: (world, batch, steps) =>
      `正在训练与 webddp check 相同的对照：${world} 个 rank 的 DDP（每个批大小 ${batch / world}）对比批大小 ${batch} 的单个 worker，初始参数和样本都相同，共 ${steps} 步……`,
    compared: (world, batch, steps, diff, rel, tol, equal) =>
      `在这里实测的等价性：${steps} 步之后，${world} 个 rank × ${batch / world} 的 DDP 与 1 个 worker × ${batch} 的参数最大相差 ${diff}，是训练带来的最大变化的 ${rel}；float32 求和顺序不同所允许的容差是 ${tol}：${equal ? '在容差内相等' : '不相等：这是一个 bug'}。`,
    compareFailed: (err) => `等价性对照失败：${err}`,
  },
};
