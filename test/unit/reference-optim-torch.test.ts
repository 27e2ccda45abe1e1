// Optimizer references against torch 2.11 (CPU, float32) bit for bit: SGD variants and Adam/AdamW
// variants, three steps on 37 elements (32 in PyTorch's vectorised loop, 5 in its scalar tail).
// Inputs are dyadic rationals, exact in float32; test/helpers/torch-goldens.py made the values.
import { describe, expect, it } from 'vitest';
import { adamInit, adamStep, type AdamOptions } from '../../src/reference/adam.ts';
import { sgdInit, sgdStep, type SgdOptions } from '../../src/reference/sgd.ts';
import { hex } from '../helpers/gradcheck.ts';

const N = 37;
const p0 = () => Float32Array.from({ length: N }, (_, i) => (((i * 37) % 101) - 50) / 16);
/** Step k's gradient; every fifth element is tiny (~1e-7), where Adam's eps and rounding matter. */
const grad = (k: number) => Float32Array.from({ length: N }, (_, i) => {
  const v = (((i * 53 + k * 17) % 97) - 48) / 64;
  return i % 5 === 3 ? v * 2 ** -20 : v;
});

const CASES: Record<string, ['sgd', SgdOptions] | ['adam', AdamOptions]> = {
  sgd_m: ['sgd', { lr: 0.1, momentum: 0.9 }],
  sgd_damp_wd: ['sgd', { lr: 0.05, momentum: 0.9, dampening: 0.1, weightDecay: 0.01 }],
  sgd_nest_wd: ['sgd', { lr: 0.05, momentum: 0.9, nesterov: true, weightDecay: 0.1 }],
  sgd_plain_max: ['sgd', { lr: 0.1, weightDecay: 0.01, maximize: true }],
  adam: ['adam', { lr: 1e-3 }],
  adam_l2: ['adam', { lr: 1e-2, weightDecay: 0.1 }],
  adamw: ['adam', { lr: 1e-2, weightDecay: 0.1, decoupled: true }],
  adam_b03: ['adam', { lr: 1e-2, beta1: 0.3, beta2: 0.99, eps: 1e-6 }], // lerp's |weight| >= 0.5 branch
};

/** Parameters after the third step, float32 hex, from torch 2.11.0+cu130 on CPU (AVX-512). */
const TORCH: Record<keyof typeof CASES, string[]> = {
  sgd_m: [
    'c033b3b6', 'bf75bd71', '3fde7f7d', 'c0200001', 'bce66666', '3ffc5581', 'bfe5b2b0', '3efc624d', '40300000',
    'bfa30083', '3f7c3647', 'c0284354', 'bf47fbe7', '3fd80002', 'c0195852', '3e1a3958', '40099b24', 'bfced1ec',
    '3f200000', '403b8a7f', 'bf8c1fbe', '3f94fbe7', 'c01cd2f2', 'bee00005', '40062083', 'c00de7f0', '3ea89fbe',
    '40150b85', 'bfc00000', '3f59b439', '4046fae1', 'bf6a7df4', '3fabdcac', 'c0240000', 'bed8f1a9', '401190e6',
    'c002778d',
  ],
  sgd_damp_wd: [
    'c03db03e', 'bf60b28c', '3fce434f', 'c01f9317', 'bddf2e72', '4002e798', 'bfea291e', '3ee8b8f6', '402f8833',
    'bfa207f9', '3f834477', 'c031fc7a', 'bf31e37f', '3fd76cf9', 'c016368a', '3d9749f5', '400e9b5b', 'bfd2c196',
    '3f1f9317', '403b7119', 'bf8aa072', '3f9aabfd', 'c02648b8', 'bedf6789', '3ffd125c', 'c00a82c7', '3e837097',
    '401a4f1e', 'bfbf7d4e', '3f51fa95', '404724dd', 'bf6671d8', '3fb21383', 'c023905d', 'bea88ac9', '400a3cf1',
    'bffd9e07',
  ],
  sgd_nest_wd: [
    'c032632d', 'bf65c0e2', '3fcc6c7e', 'c0199dc6', 'bda23ce3', '3ffa3030', 'bfe0b41a', '3ef6f229', '4028fa5a',
    'bf98d3c3', '3f73dce3', 'c02743e2', 'bf3943b4', '3fcf61cc', 'c0106209', '3dc1ac81', '40083763', 'bfca7584',
    '3f199dc6', '40335eab', 'bf82952c', '3f902d08', 'c01c2496', 'bed71019', '3ff8e9ab', 'c00542be', '3e896579',
    '401356ae', 'bfb856ed', '3f54736e', '403e7df6', 'bf58ad2b', '3fa66b9f', 'c01d74ea', 'bec092b7', '40079421',
    'bff446e5',
  ],
  sgd_plain_max: [
    'c050b01b', 'bf34fd4b', '3fb23e9b', 'c01f853e', 'be7db534', '4009e241', 'bff1abea', '3eb9b745', '402f78f8',
    'bfa38771', '3f8ffda6', 'c0446c96', 'bf03ef3a', '3fd75a46', 'c013a9a3', 'bd65f3c4', '401625c6', 'bfd924e1',
    '3f1f853d', '403d3cf8', 'bf8b0069', '3fa884ae', 'c0382912', 'bedf5420', '3fe34cad', 'c007661e', '3e0abb52',
    '40226949', 'bfbf6cb1', '3f3ef7c4', '4049807d', 'bf64f2c1', '3fc10bb6', 'c023822d', 'be074c60', '3ffbd3b6',
    'bff64535',
  ],
  adam: [
    'c047d166', 'bf50b53a', '3fc05a19', 'c0202e0f', 'be3d6846', '4007dd12', 'bfefbeba', '3edfdb27', '40300e03',
    'bfa0179f', '3f87f448', 'c03bd184', 'bf20b6cd', '3fd857ad', 'c0141ed8', '3b236215', '4013dc99', 'bfd7c1ba',
    '3f1feb2a', '403c0c64', 'bf881957', '3f9ff18d', 'c02fd1a7', 'bee15dbe', '3ff05902', 'c0081f61', '3e428237',
    '401fdc23', 'bfbfc751', '3f4fe797', '404809c1', 'bf603622', '3fb7ef37', 'c023d29c', 'be8172be', '40042c31',
    'bff83fd4',
  ],
  adam_l2: [
    'c04620d7', 'bf517022', '3fc334ca', 'c01e148b', 'be25af5f', '40066ce2', 'bfeca440', '3edde820', '402e148a',
    'bfa06a84', '3f8480cd', 'c03a21ac', 'bf26d4a6', '3fd42927', 'c014d30f', '3ccbdfa2', '40126640', 'bfd4ba51',
    '3f185304', '403a310f', 'bf888c37', '3f9c6dd5', 'c02e229a', 'bed0a716', '3ff2ec9d', 'c008e671', '3e5870b5',
    '401e602a', 'bfbc292d', '3f4e65aa', '40462b89', 'bf615ed4', '3fb45fe0', 'c022148b', 'be8e5418', '40055d7e',
    'bff9ed6d',
  ],
  adamw: [
    'c0459500', 'bf5672cf', '3fc2f0af', 'c0215166', 'be258707', '40063acf', 'bfecbc0f', '3edde5f8', '403004bc',
    'bfa070ce', '3f872206', 'c0399f6e', 'bf26a75e', '3fdac611', 'c014c268', '3ccbfdba', '40122ce3', 'bfd4ec75',
    '3f1eb60b', '403beb4c', 'bf889460', '3f9ef445', 'c02da9f6', 'beecfa0a', '3ff2c0f6', 'c008d0fb', '3e587b3c',
    '401e1f12', 'bfbd36af', '3f4e6d7e', '4047c7b9', 'bf617026', '3fb6ca91', 'c021bcba', 'be8e1567', '40055423',
    'bff9befd',
  ],
  adam_b03: [
    'c0466e41', 'bf58b3dc', '3fc2ddc2', 'c0209126', 'be2d3d80', '4006fdca', 'bfeeae3f', '3ee2b9f8', '402ff646',
    'bf9fd54d', '3f86624b', 'c03a7138', 'bf28b32a', '3fd8ed15', 'c014dd18', '3c90b465', '4012f8f5', 'bfd6d534',
    '3f208f18', '403bc458', 'bf87e5f9', '3f9e5409', 'c02e745d', 'bee39712', '3ff2c77c', 'c008e179', '3e515c9b',
    '401ef421', 'bfbfc47d', '3f5128bb', '4047aaf1', 'bf5feded', '3fb6496f', 'c0237013', 'be915e6c', '40055d85',
    'bff9cbe7',
  ],
};

describe('optimizer references vs torch 2.11, bit for bit', () => {
  it.each(Object.keys(CASES))('%s: three steps', (name) => {
    const [kind, opts] = CASES[name]!;
    const p = p0();
    const sgd = sgdInit();
    const adam = adamInit(N);
    for (let k = 0; k < 3; k++) {
      if (kind === 'sgd') sgdStep(p, grad(k), sgd, opts);
      else adamStep(p, grad(k), adam, opts);
    }
    expect(hex(p)).toEqual(TORCH[name]);
  });
});
