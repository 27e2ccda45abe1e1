// Errors the GPU layer raises: each names the device (and the kernel or buffer) it concerns.

export class GpuError extends Error {
  constructor(
    message: string,
    readonly device: string,
  ) {
    super(message);
    this.name = 'GpuError';
  }
}

/** A WGSL kernel failed to compile; the message quotes file, line, column and the source line. */
export class ShaderCompileError extends GpuError {
  constructor(
    readonly kernel: string,
    device: string,
    readonly details: string,
  ) {
    super(`shader ${kernel}.wgsl failed to compile on ${device}:\n${details}`, device);
    this.name = 'ShaderCompileError';
  }
}

/** A validation error or an out-of-memory error caught by an error scope. */
export class GpuScopeError extends GpuError {
  constructor(
    readonly kind: 'validation' | 'out-of-memory' | 'internal',
    readonly what: string,
    device: string,
    detail: string,
  ) {
    super(`${kind} error on ${device} during ${what}: ${detail}`, device);
    this.name = kind === 'out-of-memory' ? 'GpuOutOfMemoryError' : 'GpuValidationError';
  }
}

/** The device was lost (driver reset, destroy(), process limits); nothing on it can be trusted. */
export class DeviceLostError extends GpuError {
  constructor(
    device: string,
    readonly reason: string,
    detail: string,
  ) {
    super(`GPU device '${device}' was lost (${reason})${detail ? `: ${detail}` : ''}`, device);
    this.name = 'DeviceLostError';
  }
}

/**
 * Runs `fn` inside validation, out-of-memory and internal error scopes and throws the first error
 * they caught, naming `what` (e.g. "build model plan for batch 32").
 */
export async function withErrorScopes<T>(
  device: GPUDevice,
  deviceLabel: string,
  what: string,
  fn: () => T | Promise<T>,
): Promise<T> {
  device.pushErrorScope('internal');
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  let result: T | undefined;
  let thrown: Error | null = null;
  try {
    result = await fn();
  } catch (e) {
    thrown = e instanceof Error ? e : new Error(String(e));
  }
  const validation = await device.popErrorScope();
  const oom = await device.popErrorScope();
  const internal = await device.popErrorScope();
  if (thrown) throw thrown;
  if (oom) throw new GpuScopeError('out-of-memory', what, deviceLabel, oom.message);
  if (validation) throw new GpuScopeError('validation', what, deviceLabel, validation.message);
  if (internal) throw new GpuScopeError('internal', what, deviceLabel, internal.message);
  return result as T;
}
