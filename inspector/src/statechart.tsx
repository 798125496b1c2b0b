// The pair machine's statechart (machines/README.md): outside, inside, dwelling, firedOnce, with
// the current state highlighted and, when known, the last transition's edge.

// Laid out as a square so that it stays readable on a phone (its labels about 10 px at 360 px wide);
// each edge's label has its own place, clear of the others and of the states (the Chromium tests
// check their boxes).
const NODES: Record<string, { x: number; y: number; label: string }> = {
  outside: { x: 72, y: 40, label: 'outside' },
  inside: { x: 328, y: 40, label: 'inside' },
  firedOnce: { x: 72, y: 262, label: 'firedOnce' },
  dwelling: { x: 328, y: 262, label: 'dwelling' },
};

type Anchor = 'start' | 'middle' | 'end';
const EDGES: Array<{ from: string; to: string; label: string; bend?: number; at: [number, number, Anchor] }> = [
  { from: 'outside', to: 'inside', label: 'enter', bend: -24, at: [200, 24, 'middle'] },
  { from: 'inside', to: 'outside', label: 'leave', bend: -24, at: [200, 68, 'middle'] },
  { from: 'inside', to: 'dwelling', label: 'dwell deadline', at: [320, 155, 'end'] },
  { from: 'dwelling', to: 'outside', label: 'leave', at: [262, 214, 'start'] },
  { from: 'inside', to: 'firedOnce', label: 'dwell (one-time)', at: [262, 104, 'middle'] },
  { from: 'outside', to: 'firedOnce', label: 'enter (one-time)', bend: -22, at: [94, 120, 'start'] },
  { from: 'firedOnce', to: 'outside', label: 'release', bend: -22, at: [58, 190, 'end'] },
];

const W = 104;
const H = 36;

function edgePath(from: string, to: string, bend = 0): string {
  const a = NODES[from];
  const b = NODES[to];
  // From border to border along the centre line, bent by `bend` px sideways.
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len = Math.hypot(dx, dy);
  const ux = dx / len;
  const uy = dy / len;
  const clip = (ux2: number, uy2: number) => Math.min(Math.abs(W / 2 / (ux2 || 1e-9)), Math.abs(H / 2 / (uy2 || 1e-9)));
  const c = clip(ux, uy) + 4;
  const sx = a.x + ux * c;
  const sy = a.y + uy * c;
  const ex = b.x - ux * c;
  const ey = b.y - uy * c;
  const mx = (sx + ex) / 2 - uy * bend;
  const my = (sy + ey) / 2 + ux * bend;
  return `M${sx},${sy} Q${mx},${my} ${ex},${ey}`;
}

export function Statechart({ state, lastFrom, lastTo }: { state: string; lastFrom?: string | null; lastTo?: string | null }) {
  return (
    <svg class="statechart" viewBox="0 0 400 300" role="img" aria-label={`statechart, current state ${state}`} data-state={state}>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" fill="currentColor" />
        </marker>
      </defs>
      {EDGES.map((e) => {
        const d = edgePath(e.from, e.to, e.bend);
        const [lx, ly, anchor] = e.at;
        const last = e.from === lastFrom && e.to === lastTo;
        return (
          <g class={`edge${last ? ' last' : ''}`} key={`${e.from}-${e.to}`}>
            <path d={d} fill="none" marker-end="url(#arrow)" />
            <text x={lx} y={ly} text-anchor={anchor}>{e.label}</text>
          </g>
        );
      })}
      {Object.entries(NODES).map(([id, n]) => (
        <g class={`node${id === state ? ' current' : ''}`} data-node={id} key={id}>
          <rect x={n.x - W / 2} y={n.y - H / 2} width={W} height={H} rx={18} />
          <text x={n.x} y={n.y + 5} text-anchor="middle">{n.label}</text>
        </g>
      ))}
    </svg>
  );
}
