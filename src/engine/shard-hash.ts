// Which shard owns a user. FNV-1a (32-bit) over the UTF-16 code units of the user id: stable
// across processes and releases, so the same user always lands on the same shard (and, later,
// on the node that leases that shard).

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

export function fnv1a32(s: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

export function shardOf(userId: string, shardCount: number): number {
  return shardCount <= 1 ? 0 : fnv1a32(userId) % shardCount;
}
