/** The demo's queue: dependencies and priorities that make the dispatch order worth watching. */
export const ISSUES = [
  { title: 'Define the API schema', priority: 1, labels: ['api'] },
  { title: 'Write the storage layer', priority: 2, labels: ['backend'] },
  {
    title: 'Ship the HTTP endpoints',
    priority: 0,
    labels: ['api'],
    body: 'Needs the schema and the storage layer; its priority 0 lifts both of them.',
    blockedBy: ['Define the API schema', 'Write the storage layer'],
  },
  { title: 'Polish the docs', priority: 3, labels: ['docs'] },
  { title: 'Add request logging', priority: 2, labels: ['backend'], blockedBy: ['Ship the HTTP endpoints'] },
  { title: 'Tidy the CI config', priority: 4, labels: ['ci'] },
];

/**
 * Timings: four-second leases and a half-second sweep so that a reclaim happens within
 * the minute, with room for a step that a loaded machine makes slow (a lease is renewed
 * at each step's checkpoint).
 */
export const SCENARIO = {
  leaseSeconds: 4,
  sweepMs: 500,
  steps: 3,
  stepMs: 700,
  /** Carol goes silent after her first checkpoint for two and a half lease lengths. */
  stallMs: 10_000,
  /** Bob goes silent after this checkpoint of his first issue, and is killed while silent. */
  victim: 'bob',
  killAtStep: 2,
  victimStallMs: 30_000,
  /** Started in the victim's worktree once it is dead, as a person restarting an agent would. */
  replacement: 'dave',
  deadlineMs: 50_000,
};
