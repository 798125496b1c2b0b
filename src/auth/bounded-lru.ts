// The auth limits' bounded maps of keys (accounts, clients, addresses). Bounded by a size of one per
// entry rather than by `max`: with `max`, lru-cache allocates room for every key up front, and each
// app holds several of these.
import { LRUCache } from 'lru-cache';

/** An LRU map of at most `maxKeys` entries, the least recently used forgotten first. */
export function boundedLru<K extends string, V extends object | number>(maxKeys: number): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: maxKeys, sizeCalculation: () => 1 });
}
