import type { BenchResults, RunEntry } from './results-shape.js';

/**
 * bench/results/chart.svg: claims per second and claim p99 by process count, Baton (store
 * direct and via MCP) next to the native reference and PostgreSQL when measured, at one
 * dataset size. Plain SVG written by hand: two panels, linear throughput, log-scale p99.
 */

interface Series {
  name: string;
  color: string;
  dash?: string;
  points: { procs: number; claims: number; p99: number; ratio?: number }[];
}

const WIDTH = 920;
const HEIGHT = 460;
const PANEL = { w: 380, h: 260, top: 70, left: [70, 530] };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const num = (v: number) => (v >= 100 ? Math.round(v).toString() : Number(v.toPrecision(2)).toString());

function series(runs: readonly RunEntry[], issues: number): Series[] {
  const defs: [string, string, string, string, string?][] = [
    ['native', 'store', 'native reference (better-sqlite3, WAL)', '#6b7280', '6 4'],
    ['baton', 'store', 'Baton file store, store-direct', '#2563eb'],
    ['baton', 'mcp', 'Baton via baton serve (MCP)', '#dc2626'],
    ['postgres', 'store', 'Baton on PostgreSQL, store-direct', '#059669'],
  ];
  const out: Series[] = [];
  for (const [store, via, name, color, dash] of defs) {
    const points = runs
      .filter((r) => r.store === store && r.via === via && r.issues === issues)
      .sort((a, b) => a.procs - b.procs)
      .map((r) => ({ procs: r.procs, claims: r.claimsPerSec, p99: r.p99Ms, ratio: r.ratio?.claimsPerSec }));
    if (points.length) out.push({ name, color, dash, points });
  }
  return out;
}

/** Picks the size the targets are stated at when it was measured, else the largest. */
function chartSize(runs: readonly RunEntry[]): number {
  const sizes = [...new Set(runs.map((r) => r.issues))];
  return sizes.includes(10_000) ? 10_000 : Math.max(...sizes);
}

function niceMax(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

export function renderChart(results: BenchResults): string {
  const issues = chartSize(results.runs);
  const all = series(results.runs, issues);
  const procs = [...new Set(results.runs.filter((r) => r.issues === issues).map((r) => r.procs))].sort((a, b) => a - b);
  const x = (left: number, p: number) => left + (procs.length === 1 ? PANEL.w / 2 : 30 + ((PANEL.w - 60) * procs.indexOf(p)) / (procs.length - 1));
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`);
  parts.push(`<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`);
  const title = `Baton vs native reference, ${issues / 1000}k issues — ${results.date.slice(0, 10)}, ${results.machine.cores} cores${results.quick ? ', quick run' : ''}`;
  parts.push(`<text x="${WIDTH / 2}" y="24" text-anchor="middle" font-size="15" font-weight="bold">${esc(title)}</text>`);

  // Left: throughput, linear.
  const maxClaims = niceMax(Math.max(1, ...all.flatMap((s) => s.points.map((p) => p.claims))) * 1.1);
  const yClaims = (v: number) => PANEL.top + PANEL.h - (PANEL.h * v) / maxClaims;
  panelFrame(parts, PANEL.left[0], 'claims per second (higher is better)', procs, x);
  for (let i = 0; i <= 5; i++) {
    const v = (maxClaims * i) / 5;
    gridLine(parts, PANEL.left[0], yClaims(v), num(v));
  }
  const labels: { procs: number; y: number; text: string; color: string }[] = [];
  for (const s of all) {
    plot(parts, s, s.points.map((p) => [x(PANEL.left[0], p.procs), yClaims(p.claims)]));
    for (const p of s.points) {
      if (p.ratio !== undefined && Number.isFinite(p.ratio)) labels.push({ procs: p.procs, y: yClaims(p.claims) + 4, text: `${num(p.ratio)}× native`, color: s.color });
    }
  }
  // Ratio labels beside their points, pushed apart where they would overlap.
  for (const p of procs) {
    const column = labels.filter((l) => l.procs === p).sort((a, b) => a.y - b.y);
    for (let i = 1; i < column.length; i++) column[i].y = Math.max(column[i].y, column[i - 1].y + 12);
    for (const l of column) parts.push(`<text x="${x(PANEL.left[0], p) + 8}" y="${l.y.toFixed(1)}" fill="${l.color}" font-size="10">${l.text}</text>`);
  }

  // Right: p99, log scale.
  const p99s = all.flatMap((s) => s.points.map((p) => p.p99)).filter((v) => v > 0 && Number.isFinite(v));
  const lo = 10 ** Math.floor(Math.log10(Math.min(1, ...p99s)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(10, ...p99s)));
  const yP99 = (v: number) => PANEL.top + PANEL.h - (PANEL.h * (Math.log10(Math.max(v, lo)) - Math.log10(lo))) / (Math.log10(hi) - Math.log10(lo));
  panelFrame(parts, PANEL.left[1], 'claim p99 latency, ms, log scale (lower is better)', procs, x);
  for (let v = lo; v <= hi; v *= 10) gridLine(parts, PANEL.left[1], yP99(v), num(v));
  // The target: p99 <= 10 ms with 8 processes.
  parts.push(`<line x1="${PANEL.left[1]}" x2="${PANEL.left[1] + PANEL.w}" y1="${yP99(10)}" y2="${yP99(10)}" stroke="#f59e0b" stroke-width="1.5" stroke-dasharray="3 3"/>`);
  parts.push(`<text x="${PANEL.left[1] + PANEL.w - 4}" y="${yP99(10) - 4}" text-anchor="end" fill="#b45309" font-size="11">target 10 ms</text>`);
  for (const s of all) plot(parts, s, s.points.map((p) => [x(PANEL.left[1], p.procs), yP99(p.p99)]));

  // Legend.
  all.forEach((s, i) => {
    const lx = 70 + (i % 2) * 420;
    const ly = PANEL.top + PANEL.h + 62 + Math.floor(i / 2) * 18;
    parts.push(`<line x1="${lx}" x2="${lx + 26}" y1="${ly - 4}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
    parts.push(`<text x="${lx + 32}" y="${ly}">${esc(s.name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function panelFrame(parts: string[], left: number, title: string, procs: number[], x: (left: number, p: number) => number): void {
  parts.push(`<text x="${left + PANEL.w / 2}" y="${PANEL.top - 14}" text-anchor="middle" font-weight="bold">${esc(title)}</text>`);
  parts.push(`<rect x="${left}" y="${PANEL.top}" width="${PANEL.w}" height="${PANEL.h}" fill="none" stroke="#9ca3af"/>`);
  for (const p of procs) {
    parts.push(`<text x="${x(left, p)}" y="${PANEL.top + PANEL.h + 16}" text-anchor="middle">${p}</text>`);
  }
  parts.push(`<text x="${left + PANEL.w / 2}" y="${PANEL.top + PANEL.h + 32}" text-anchor="middle" fill="#374151">concurrent agent processes</text>`);
}

function gridLine(parts: string[], left: number, y: number, label: string): void {
  parts.push(`<line x1="${left}" x2="${left + PANEL.w}" y1="${y}" y2="${y}" stroke="#e5e7eb"/>`);
  parts.push(`<text x="${left - 6}" y="${y + 4}" text-anchor="end" fill="#374151">${label}</text>`);
}

function plot(parts: string[], s: Series, points: [number, number][]): void {
  const path = points.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${px.toFixed(1)},${py.toFixed(1)}`).join(' ');
  parts.push(`<path d="${path}" fill="none" stroke="${s.color}" stroke-width="2.5"${s.dash ? ` stroke-dasharray="${s.dash}"` : ''}/>`);
  for (const [px, py] of points) parts.push(`<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="4" fill="${s.color}"/>`);
}
