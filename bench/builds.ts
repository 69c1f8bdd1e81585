import { resolve } from 'node:path';

/** A build measured beside others: its label in the tables, and the file that is it (a dist/cli.js, a .vsix). */
export interface LabelledBuild {
  label: string;
  path: string;
}

/**
 * `label=path,label=path` as the options naming builds take it; undefined for an error
 * saying what is wrong. A path may itself hold `=`: the label ends at the first.
 */
export function parseBuilds(text: string): LabelledBuild[] | undefined {
  const builds: LabelledBuild[] = [];
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    if (at < 1 || at === pair.length - 1) return undefined;
    builds.push({ label: pair.slice(0, at), path: resolve(pair.slice(at + 1)) });
  }
  return builds;
}
