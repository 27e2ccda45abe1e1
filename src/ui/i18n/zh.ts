// 教学页面的全部简体中文文本，按页面部分分文件（./zh/）。类型取自 en.ts：缺少任何一个键，
// 编译器都会报错。代码、API 名称与 PyTorch 日志格式保持英文原样（`code` 标记），其余均为中文。
import type { Messages } from './en.ts';
import { zhControls } from './zh/controls.ts';
import { zhExplain } from './zh/explain.ts';
import { zhPanels } from './zh/panels.ts';
import { zhRingShards } from './zh/ring-shards.ts';
import { zhViews } from './zh/views.ts';

export const zh: Messages = { ...zhControls, ...zhViews, ...zhRingShards, ...zhPanels, ...zhExplain };
