import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { crc32 } from 'node:zlib';
import type { FileSystem } from './file-system.js';
import { errnoCode, readAt, statOrUndefined, unlinkIfPresent } from './file-system.js';

/**
 * The files inside the lock folder:
 *
 * - `owner`: exists while someone holds the lock; holds {@link OwnerInfo} as JSON.
 *   Created with O_EXCL, which is what makes the lock exclusive.
 * - `t-<n>-<host>-<pid>-<nonce>`: a waiter's ticket. Lower `n` waits less; only the
 *   waiter at the head of the queue tries to create `owner`, which makes the lock fair.
 *   The waiter that gets the lock keeps its ticket until it lets go. The name carries
 *   everything needed to judge the waiter alive without reading it.
 * - `break`: a short lock taken while removing a stale `owner`, so that two processes
 *   judging the same dead holder cannot remove a live one that replaced it.
 */
/** The file whose existence is the lock. */
export const OWNER_FILE = 'owner';
/** The short lock taken while removing a stale owner. */
export const BREAK_FILE = 'break';
const TICKET_PREFIX = 't-';

/** Who holds the lock. */
export interface OwnerInfo {
  pid: number;
  host: string;
  nonce: string;
  /** Wall-clock milliseconds when it was acquired. */
  at: number;
  /** The holder's process start time where the kernel tells it (see {@link processStartTime}). */
  started?: string;
}

/** This machine's name; process ids are only comparable on the same one. */
export const HOST = hostname();
/** A short tag of the host for ticket names. */
export const HOST_TAG = crc32(HOST).toString(36);

/**
 * Whether a process on this machine is running (EPERM: it is, under another user). A
 * killed process stays a zombie until its parent reaps it, and signal 0 still reaches a
 * zombie; on Linux /proc tells them apart, so a killed holder is recognised at once.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
  return procStat(pid)?.[0] !== 'Z';
}

/** Whether a process on this machine is stopped (Ctrl-Z, SIGSTOP, a debugger): alive, but not running. */
export function isProcessStopped(pid: number): boolean {
  const state = procStat(pid)?.[0];
  return state === 'T' || state === 't';
}

/**
 * When a process started, in clock ticks since boot: with its pid, it names one process
 * for good, where a pid alone may be reused once the process is gone. Linux only
 * (undefined elsewhere, or when the process is gone).
 */
export function processStartTime(pid: number): string | undefined {
  return procStat(pid)?.[19];
}

/** This process's start time, written into the owner file it creates. */
export const PROCESS_STARTED = processStartTime(process.pid);

/** The fields of /proc/<pid>/stat from the third (the state) on; undefined off Linux or when gone. */
function procStat(pid: number): string[] | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // They follow the parenthesised command name, which may itself contain ") ".
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * Creates `owner` for `info` if nobody holds the lock, answering its open descriptor,
 * which the holder keeps: the file's link count then tells whether the lock is still
 * its own. Undefined when someone holds the lock.
 */
export function tryCreateOwner(fs: FileSystem, dir: string, info: OwnerInfo): number | undefined {
  let fd: number;
  try {
    fd = fs.openSync(`${dir}/${OWNER_FILE}`, 'wx', 0o600);
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return undefined;
    throw error;
  }
  try {
    fs.writeSync(fd, JSON.stringify(info));
  } catch (error) {
    // A blank owner would make every waiter wait for it to turn stale: take it back.
    fs.closeSync(fd);
    unlinkIfPresent(fs, `${dir}/${OWNER_FILE}`);
    throw error;
  }
  return fd;
}

/**
 * The current owner: its info, `'blank'` while its creator has not yet written it (or
 * was killed in between), undefined when nobody holds the lock.
 */
export function readOwner(fs: FileSystem, dir: string): OwnerInfo | 'blank' | undefined {
  let fd: number;
  try {
    fd = fs.openSync(`${dir}/${OWNER_FILE}`, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const text = readAt(fs, fd, 4096, 0).toString('utf8');
    const info = JSON.parse(text) as OwnerInfo;
    return typeof info.pid === 'number' && typeof info.nonce === 'string' ? info : 'blank';
  } catch {
    return 'blank';
  } finally {
    fs.closeSync(fd);
  }
}

/** Milliseconds since `owner` was created or last touched by its holder; undefined when absent. */
export function ownerIdleMs(fs: FileSystem, dir: string, now: number): number | undefined {
  const stat = statOrUndefined(fs, `${dir}/${OWNER_FILE}`);
  return stat ? now - stat.mtimeMs : undefined;
}

/**
 * Removes `owner` if it still belongs to the holder judged stale (`nonce`, or `'blank'`),
 * under the short break lock. Answers whether it removed it. Never touches anything but
 * the lock folder.
 */
export function breakOwner(fs: FileSystem, dir: string, judged: string | 'blank', staleBreakMs: number): boolean {
  const breakPath = `${dir}/${BREAK_FILE}`;
  let fd: number;
  try {
    fd = fs.openSync(breakPath, 'wx', 0o600);
  } catch (error) {
    if (errnoCode(error) !== 'EEXIST') throw error;
    // A breaker killed mid-break leaves this behind; it only ever lives for microseconds.
    const stat = statOrUndefined(fs, breakPath);
    if (stat && Date.now() - stat.mtimeMs > staleBreakMs) unlinkIfPresent(fs, breakPath);
    return false;
  }
  try {
    fs.closeSync(fd);
    const current = readOwner(fs, dir);
    const same = current === 'blank' ? judged === 'blank' : current !== undefined && current.nonce === judged;
    if (same) unlinkIfPresent(fs, `${dir}/${OWNER_FILE}`);
    return same;
  } finally {
    unlinkIfPresent(fs, breakPath);
  }
}

/**
 * Whether the holder that wrote `owner` is gone. On this machine that is decided by its
 * process, never by how long it has held the lock: a holder that is merely stopped (Ctrl-Z,
 * a debugger, a suspended laptop) would otherwise lose the lock, resume, and write over the
 * work of whoever took it. Its process start time tells it from a later process reusing
 * its pid; where there is none to compare (not Linux, an older owner file), and for
 * holders on other machines, silence past `staleMs` is all there is to go by.
 */
export function isOwnerGone(owner: OwnerInfo, idleMs: number, staleMs: number): boolean {
  if (owner.host !== HOST || owner.pid === process.pid) return idleMs > staleMs;
  if (!isProcessAlive(owner.pid)) return true;
  if (owner.started === undefined || PROCESS_STARTED === undefined) return idleMs > staleMs;
  return processStartTime(owner.pid) !== owner.started;
}

/** A parsed ticket name. */
export interface Ticket {
  name: string;
  n: number;
  hostTag: string;
  pid: number;
}

/** The tickets among a folder listing, head of the queue first. */
export function queuedTickets(names: readonly string[]): Ticket[] {
  const tickets: Ticket[] = [];
  for (const name of names) {
    const ticket = parseTicket(name);
    if (ticket) tickets.push(ticket);
  }
  // Zero-padded numbers sort as text; equal numbers (a rare race) fall back to the rest of the name.
  return tickets.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Parses a ticket file name; undefined for any other file. */
export function parseTicket(name: string): Ticket | undefined {
  if (!name.startsWith(TICKET_PREFIX)) return undefined;
  const [, n, hostTag, pid] = name.split('-');
  return { name, n: Number(n), hostTag, pid: Number(pid) };
}

/** Creates a ticket behind every ticket in `names`. */
export function createTicket(fs: FileSystem, dir: string, names: readonly string[], nonce: string): Ticket {
  const tickets = queuedTickets(names);
  const n = (tickets.length ? tickets[tickets.length - 1].n : 0) + 1;
  const name = `${TICKET_PREFIX}${String(n).padStart(12, '0')}-${HOST_TAG}-${process.pid}-${nonce}`;
  fs.closeSync(fs.openSync(`${dir}/${name}`, 'wx', 0o600));
  return { name, n, hostTag: HOST_TAG, pid: process.pid };
}

/**
 * Whether a ticket may be passed: its waiter is dead on this host, or stopped on this
 * host, or not refreshed for `staleMs`. A stopped waiter holds nothing, since only the
 * owner file is the lock; when it resumes it finds its ticket gone and queues again. The
 * holder's own ticket is never passed for being stopped (`holder`: the owner's nonce, or
 * `'blank'` while it cannot be read yet): a stopped holder keeps the lock (see isOwnerGone).
 */
export function isTicketStale(fs: FileSystem, dir: string, ticket: Ticket, staleMs: number, holder: string | 'blank' | undefined): boolean {
  if (ticket.hostTag === HOST_TAG && ticket.pid !== process.pid) {
    if (!isProcessAlive(ticket.pid)) return true;
    const holds = holder === 'blank' || (holder !== undefined && ticket.name.endsWith(`-${holder}`));
    if (!holds && isProcessStopped(ticket.pid)) return true;
  }
  const stat = statOrUndefined(fs, `${dir}/${ticket.name}`);
  return stat !== undefined && Date.now() - stat.mtimeMs > staleMs;
}
