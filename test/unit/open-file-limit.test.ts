// The open-file limit as Linux shows it in /proc/<pid>/limits: the "Max open files" row, soft and hard.
import { describe, expect, it } from 'vitest';
import { parseOpenFileLimit, readOpenFileLimit } from '../../src/ops/openFileLimit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units     
Max cpu time              unlimited            unlimited            seconds   
Max processes             96364                96364                processes 
Max open files            1024                 524288               files     
Max locked memory         8388608              8388608              bytes     
`;

describe('parseOpenFileLimit', () => {
  it('reads the soft and hard limit of the "Max open files" row', () => {
    expect(parseOpenFileLimit(LIMITS)).toEqual({ soft: 1024, hard: 524_288 });
  });

  it('reads unlimited as Infinity', () => {
    expect(parseOpenFileLimit('Max open files            unlimited            unlimited            files\n')).toEqual({
      soft: Number.POSITIVE_INFINITY,
      hard: Number.POSITIVE_INFINITY,
    });
  });

  it('gives undefined for text without the row or with values it does not know', () => {
    expect(parseOpenFileLimit('')).toBeUndefined();
    expect(parseOpenFileLimit(LIMITS.replace('Max open files', 'Max open filez'))).toBeUndefined();
    expect(parseOpenFileLimit('Max open files            -1                   4096                 files\n')).toBeUndefined();
    expect(parseOpenFileLimit('Max open files            1024\nMax locked memory         8388608              8388608              bytes\n')).toBeUndefined();
  });
});

describe('readOpenFileLimit', () => {
  it('gives undefined where the file does not exist (systems other than Linux)', async () => {
    expect(await readOpenFileLimit('/nonexistent/proc/self/limits')).toBeUndefined();
  });
});
