import { mintSessionId } from '../shared/tokens.js';
import { systemRandom, type RandomSource } from '../shared/clock.js';

/** Who this server process works for (docs/protocol.md section 2), except the agent name, known after `initialize`. */
export interface SessionIdentity {
  /** Random id minted at start; it dies with the process. */
  session: string;
  /** `BATON_RENEWER`: who keeps this session's leases alive, recorded on each of them. */
  renewer: string | null;
  /** `BATON_AGENT`, when set: it wins over the client's name. */
  agentOverride: string | null;
}

const FALLBACK_AGENT = 'agent';

function nonEmpty(value: string | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** Mints the session and reads BATON_AGENT and BATON_RENEWER. */
export function sessionIdentity(env: NodeJS.ProcessEnv, random: RandomSource = systemRandom): SessionIdentity {
  return {
    session: mintSessionId(random),
    renewer: nonEmpty(env.BATON_RENEWER),
    agentOverride: nonEmpty(env.BATON_AGENT),
  };
}

/** The agent: `BATON_AGENT`, else the MCP client's `clientInfo.name`, else `agent`. */
export function agentName(identity: SessionIdentity, clientName: string | undefined): string {
  return identity.agentOverride ?? nonEmpty(clientName) ?? FALLBACK_AGENT;
}
