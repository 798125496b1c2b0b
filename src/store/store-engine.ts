// What either engine is, past its repositories: which one it is, whether writes go through
// (/health), and its shutdown.
import type { WriteHealth } from './store-errors.js';

export interface StoreEngine {
  readonly kind: 'embedded' | 'mongodb';
  /** Whether writes are going through (/health). */
  health(): WriteHealth;
  close(): Promise<void>;
}
