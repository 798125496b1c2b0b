// Schema pieces shared by the layer, place and trigger routes: enums that name their allowed
// values, clearable window fields, and the 0/1 query switches of layer/info and place/list.
import { Type, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { DateInput, Flag, TimeOfDay } from './common.js';

/** A string enum that Ajv reports as "must be equal to one of the allowed values". */
export function StringEnum<const T extends readonly string[]>(values: T): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
}

/** null or "" clears the bound on update (and means "none" on create). */
const Clearable = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);

export const WindowFields = {
  date_from: Type.Optional(Clearable(DateInput)),
  date_to: Type.Optional(Clearable(DateInput)),
  time_from: Type.Optional(Clearable(TimeOfDay)),
  time_to: Type.Optional(Clearable(TimeOfDay)),
};

/** A `1`/`0` query switch (`include_places=1`); "true"/"false" are accepted too. */
export const QuerySwitch = Type.Optional(Flag);
