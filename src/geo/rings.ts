// Whether the rings of one polygon are simple and apart: no edge crosses or touches another, except
// two edges that follow each other in a ring, which share their corner (and may not fold back over
// each other). A sweep over the edges sorted by their western end, so that only edges whose
// longitude ranges overlap are compared.
type Pos = readonly [number, number] | readonly number[];

interface Edge {
  ring: number;
  /** Position of the edge among its ring's edges of non-zero length. */
  k: number;
  /** Edges of non-zero length in its ring. */
  n: number;
  ax: number;
  ay: number;
  bx: number;
  by: number;
  minX: number;
  maxX: number;
  minY: number;
  maxY: number;
}

/** The indexes of two rings (equal when one ring meets itself) that cross or touch, or null when none do. */
export function crossingPair(rings: readonly (readonly Pos[])[]): [number, number] | null {
  const edges: Edge[] = [];
  for (let r = 0; r < rings.length; r++) {
    const ring = rings[r]!;
    const mine: Edge[] = [];
    for (let i = 0; i + 1 < ring.length; i++) {
      const a = ring[i]!;
      const b = ring[i + 1]!;
      if (a[0] === b[0] && a[1] === b[1]) continue; // a repeated position is no edge
      mine.push({
        ring: r, k: mine.length, n: 0, ax: a[0]!, ay: a[1]!, bx: b[0]!, by: b[1]!,
        minX: Math.min(a[0]!, b[0]!), maxX: Math.max(a[0]!, b[0]!), minY: Math.min(a[1]!, b[1]!), maxY: Math.max(a[1]!, b[1]!),
      });
    }
    for (const e of mine) e.n = mine.length;
    edges.push(...mine);
  }
  edges.sort((a, b) => a.minX - b.minX);
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i]!;
    for (let j = i + 1; j < edges.length; j++) {
      const f = edges[j]!;
      if (f.minX > e.maxX) break;
      if (f.minY > e.maxY || f.maxY < e.minY) continue;
      if (adjacent(e, f) ? foldsBack(e, f) : segmentsMeet(e, f)) return e.ring <= f.ring ? [e.ring, f.ring] : [f.ring, e.ring];
    }
  }
  return null;
}

function adjacent(e: Edge, f: Edge): boolean {
  if (e.ring !== f.ring) return false;
  const d = Math.abs(e.k - f.k);
  return d === 1 || d === e.n - 1;
}

/** Two edges that share a corner overlap beyond it when they lie on one line and point the same way from it. */
function foldsBack(e: Edge, f: Edge): boolean {
  // The shared corner and each edge's other end.
  let cx: number, cy: number, px: number, py: number, qx: number, qy: number;
  if (e.bx === f.ax && e.by === f.ay) [cx, cy, px, py, qx, qy] = [e.bx, e.by, e.ax, e.ay, f.bx, f.by];
  else if (f.bx === e.ax && f.by === e.ay) [cx, cy, px, py, qx, qy] = [e.ax, e.ay, e.bx, e.by, f.ax, f.ay];
  else return segmentsMeet(e, f); // repeated positions removed between them: compare as any two edges
  const cross = (px - cx) * (qy - cy) - (py - cy) * (qx - cx);
  const dot = (px - cx) * (qx - cx) + (py - cy) * (qy - cy);
  return cross === 0 && dot > 0;
}

function orient(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number {
  const v = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
  return v > 0 ? 1 : v < 0 ? -1 : 0;
}

/** c lies on the segment a–b, given that the three are on one line. */
function within(ax: number, ay: number, bx: number, by: number, cx: number, cy: number): boolean {
  return Math.min(ax, bx) <= cx && cx <= Math.max(ax, bx) && Math.min(ay, by) <= cy && cy <= Math.max(ay, by);
}

/** Do the two closed segments have a point in common? */
function segmentsMeet(e: Edge, f: Edge): boolean {
  const o1 = orient(e.ax, e.ay, e.bx, e.by, f.ax, f.ay);
  const o2 = orient(e.ax, e.ay, e.bx, e.by, f.bx, f.by);
  const o3 = orient(f.ax, f.ay, f.bx, f.by, e.ax, e.ay);
  const o4 = orient(f.ax, f.ay, f.bx, f.by, e.bx, e.by);
  if (o1 !== o2 && o3 !== o4) return true;
  return (
    (o1 === 0 && within(e.ax, e.ay, e.bx, e.by, f.ax, f.ay)) ||
    (o2 === 0 && within(e.ax, e.ay, e.bx, e.by, f.bx, f.by)) ||
    (o3 === 0 && within(f.ax, f.ay, f.bx, f.by, e.ax, e.ay)) ||
    (o4 === 0 && within(f.ax, f.ay, f.bx, f.by, e.bx, e.by))
  );
}
