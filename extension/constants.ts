/** Ids that package.json declares and the code refers to: one place for each. */

export const COMMANDS = {
  refresh: 'baton.refresh',
  release: 'baton.release',
  reopen: 'baton.reopen',
  renewNow: 'baton.renewNow',
  openCheckpoint: 'baton.openCheckpoint',
  copyBranch: 'baton.copyBranch',
  createIssue: 'baton.createIssue',
  configureAgents: 'baton.configureAgents',
  showActivity: 'baton.showActivity',
  showLog: 'baton.showLog',
  openWorktree: 'baton.openWorktree',
  tidyWorktrees: 'baton.tidyWorktrees',
} as const;

export const VIEWS = {
  container: 'baton',
  claims: 'baton.claims',
  /** The command VS Code generates for every view. */
  focusClaims: 'baton.claims.focus',
} as const;

export const SETTINGS = {
  section: 'baton',
  databasePath: 'databasePath',
  warningSeconds: 'countdownWarningSeconds',
  confirmRelease: 'confirmRelease',
} as const;

/** Context key that picks the welcome text of the empty view. */
export const CONTEXT_KEYS = {
  state: 'baton.state',
} as const;

export const SCHEMES = {
  checkpoint: 'baton-checkpoint',
  activity: 'baton-activity',
} as const;

export const MCP_PROVIDER_ID = 'baton.mcpServer';
export const OUTPUT_CHANNEL = 'Baton';
export const DEFAULT_WARNING_SECONDS = 300;

/** How often the model asks the store whether anything changed; a version check costs a file stat or two. */
export const POLL_MS = 250;
