// What the kernel registry (kernels.ts) says of one kernel, and the shorthands its entries use.

export type BindingKind = 'uniform' | 'read' | 'read_write';
export type FieldType = 'u32' | 'f32' | 'i32' | 'vec4f';

export interface KernelSpec {
  /** Binding i of group 0: [name, kind]. Binding 0 is always the uniform `params`. */
  readonly bindings: readonly (readonly [string, BindingKind])[];
  /** The fields of `struct Params`, in declaration order. */
  readonly params: Readonly<Record<string, FieldType>>;
  /** Overridable constants and their defaults (workgroup sizes). */
  readonly overrides: Readonly<Record<string, number>>;
  /**
   * A device feature the WGSL enables (`enable subgroups;`; the `*_sgmat` kernels: `enable f16;` and
   * `enable chromium_experimental_subgroup_matrix;`); only devices that have it compile it.
   */
  readonly requires?: 'subgroups' | 'chromium-experimental-subgroup-matrix';
}

export const U32 = 'u32' as const;
export const F32 = 'f32' as const;
export const WG64 = { WG: 64 } as const;
export const PARAMS = ['params', 'uniform'] as const;
export const SGMAT = 'chromium-experimental-subgroup-matrix' as const;
