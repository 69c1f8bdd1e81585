/** What a demo agent reports to the demo, one JSON object per line on its stdout. Never a token. */
export type AgentEvent =
  | { type: 'ready'; agent: string; serverPid: number }
  | { type: 'claimed'; agent: string; key: string; title: string; resumed: boolean; fromStep: number; checkpointNote: string | null; branch: string }
  | { type: 'checkpoint'; agent: string; key: string; step: number; of: number; note: string }
  | { type: 'stalling'; agent: string; key: string; ms: number }
  | { type: 'refused'; agent: string; key: string; call: string; code: string; reason: string }
  | { type: 'done'; agent: string; key: string }
  | { type: 'finished'; agent: string };
