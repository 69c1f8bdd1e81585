import type { LeaseNotice } from './types.js';

const WHAT: Record<LeaseNotice['reason'], (by: string) => string> = {
  expired: (by) => `its lease expired and was cleared by ${by}`,
  superseded: (by) => `it was taken over by ${by}`,
  released: (by) => `it was released by ${by}`,
  finished: (by) => `it was finished by ${by}`,
};

/**
 * One lost lease as an agent reads it, in a tool answer or a hook's context: the issue,
 * what happened, by whom and when, and what to do now.
 */
export function noticeText(notice: LeaseNotice): string {
  return `Baton: you no longer hold ${notice.key}: ${WHAT[notice.reason](notice.by)} at ${notice.at}. Stop work on ${notice.key} and take new work with next_issue.`;
}

/** Several notices, one line each. */
export function noticesText(notices: readonly LeaseNotice[]): string {
  return notices.map(noticeText).join('\n');
}
