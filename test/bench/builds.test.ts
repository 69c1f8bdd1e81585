import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseBuilds } from '../../bench/builds.js';

describe('parseBuilds', () => {
  test('reads label=path pairs, each path made absolute', () => {
    expect(parseBuilds('this=dist/cli.js,before=/tmp/old/dist/cli.js')).toEqual([
      { label: 'this', path: resolve('dist/cli.js') },
      { label: 'before', path: '/tmp/old/dist/cli.js' },
    ]);
  });

  test('a path may hold "=": the label ends at the first', () => {
    expect(parseBuilds('a=/tmp/x=y/cli.js')).toEqual([{ label: 'a', path: '/tmp/x=y/cli.js' }]);
  });

  test('a pair without a label or a path is refused', () => {
    for (const text of ['foo', '=dist/cli.js', 'a=', 'a=dist/cli.js,', '']) expect(parseBuilds(text), text).toBeUndefined();
  });
});
