// Number words shared by the language tables.

/** "1 worker", "2 workers". */
export const plural = (n: number, one: string, many = `${one}s`): string => (n === 1 ? one : many);

/** 50000 -> "50,000". */
export const num = (n: number): string => n.toLocaleString('en-US');

/** 50000 -> "50,000" as Chinese text writes it. */
export const zhNum = (n: number): string => n.toLocaleString('zh-CN');
