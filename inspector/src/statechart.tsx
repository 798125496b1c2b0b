// The pair machine's statechart (machines/README.md): outside, inside, dwelling, firedOnce, with
// the current state highlighted and, when known, the last transition's edge.

const NODES: Record<string, { x: number; y: number; label: string }> = {
  outside: { x: 90, y: 60, label: 'outside' },
  inside: { x: 290, y: 60, label: 'inside' },
  dwelling: { x: 490, y: 60, label: 'dwelling' },
  firedOnce: { x: 290, y: 190, label: 'firedOnce' },
};

const EDGES: Array<{ from: string; to: string; label: string; bend?: number }> = [
  { from: 'outside', to: 'inside', label: 'enter', bend: -28 },
  { from: 'inside', to: 'outside', label: 'leave', bend: -28 },
  { from: 'inside', to: 'dwelling', label: 'dwell deadline' },
  { from: 'dwelling', to: 'outside', label: 'leave', bend: -70 },
  { from: 'outside', to: 'firedOnce', label: 'enter (one-time)', bend: 36 },
  { from: 'inside', to: 'firedOnce', label: 'dwell (one-time)' },
  { from: 'firedOnce', to: 'outside', label: 'release', bend: 36 },
];

const W = 120;
const H = 40;

function edgePath(from: string, to: string, bend = 0): { d: string; lx: number; ly: number } {
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
  return { d: `M${sx},${sy} Q${mx},${my} ${ex},${ey}`, lx: (sx + ex) / 4 + mx / 2, ly: (sy + ey) / 4 + my / 2 };
}

export function Statechart({ state, lastFrom, lastTo }: { state: string; lastFrom?: string | null; lastTo?: string | null }) {
  return (
    <svg class="statechart" viewBox="0 0 580 240" role="img" aria-label={`statechart, current state ${state}`} data-state={state}>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" fill="currentColor" />
        </marker>
      </defs>
      {EDGES.map((e) => {
        const { d, lx, ly } = edgePath(e.from, e.to, e.bend);
        const last = e.from === lastFrom && e.to === lastTo;
        return (
          <g class={`edge${last ? ' last' : ''}`} key={`${e.from}-${e.to}`}>
            <path d={d} fill="none" marker-end="url(#arrow)" />
            <text x={lx} y={ly - 4} text-anchor="middle">{e.label}</text>
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
