// Temporary: the date rules moved to schemas/dates.ts (schemas import no services). Kept only for
// delivery/payload.ts, under rewrite elsewhere; remove once it imports schemas/dates.js.
export * from '../schemas/dates.js';
