// Numbers written as text (a command-line flag, a safetensors metadata value) read in decimal
// only: `Number()` also takes '0x10', '0b1', ' 3', '3.0' for an integer, '' as 0 and 'Infinity',
// each of which silently meant something else. These decoders take decimal forms only and return
// undefined for anything else; the caller names the field in its message.
//
// Two spellings of decimal: 'exact' (the default) is what a file written by a program holds, one
// spelling per value; 'typed' is what a person types on a command line, the forms Python's int()
// and float() take in decimal: surrounding spaces, a leading '+', leading zeros, '.5' and '5.'.

/** 'exact': one spelling per value (files). 'typed': also ' +007 ', '.5', '5.' (command-line flags). */
export type DecimalForm = 'exact' | 'typed';

const INTEGER: Record<DecimalForm, RegExp> = {
  exact: /^-?(?:0|[1-9][0-9]*)$/,
  typed: /^[+-]?[0-9]+$/,
};
const NUMBER: Record<DecimalForm, RegExp> = {
  exact: /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/,
  typed: /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/,
};

const spelled = (text: string, form: DecimalForm) => (form === 'typed' ? text.trim() : text);

/**
 * A decimal integer that is a safe integer. 'exact': optional '-', no leading zeros, no '+', spaces, fraction or
 * exponent, not '-0'. 'typed': also surrounding spaces, '+' and leading zeros ('-0' reads as 0).
 */
export function decimalInt(text: string, form: DecimalForm = 'exact'): number | undefined {
  const s = spelled(text, form);
  if (!INTEGER[form].test(s)) return undefined;
  const n = Number(s);
  if (!Number.isSafeInteger(n)) return undefined;
  if (Object.is(n, -0)) return form === 'typed' ? 0 : undefined;
  return n;
}

/**
 * A finite decimal number. 'exact': `1e-3`, `0.5`, `-2`; not `.5`, `+1`, `0x10`, ` 1`, `Infinity`, `1e400`.
 * 'typed': also surrounding spaces, '+', leading zeros, `.5` and `5.`.
 */
export function decimalNumber(text: string, form: DecimalForm = 'exact'): number | undefined {
  const s = spelled(text, form);
  if (!NUMBER[form].test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}
