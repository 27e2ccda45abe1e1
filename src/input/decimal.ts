// Numbers written as text (a command-line flag, a safetensors metadata value) read in decimal
// only: `Number()` also takes '0x10', '0b1', ' 3', '3.0' for an integer, '' as 0 and 'Infinity',
// each of which silently meant something else. These decoders take exactly the decimal forms and
// return undefined for anything else; the caller names the field in its message.

const INTEGER = /^-?(?:0|[1-9][0-9]*)$/;
const NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

/** A decimal integer (optional '-', no leading zeros, no sign '+', spaces, fraction or exponent) that is a safe integer. */
export function decimalInt(text: string): number | undefined {
  if (!INTEGER.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && !Object.is(n, -0) ? n : undefined;
}

/** A finite decimal number (`1e-3`, `0.5`, `-2`; not `.5`, `0x10`, ` 1`, `Infinity`, `1e400`). */
export function decimalNumber(text: string): number | undefined {
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}
