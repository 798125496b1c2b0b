// What a username may be: what a person can type and read back as their login. Spaces and colons
// would break HTTP Basic and the password grant's forms; control characters (C0, DEL, C1: NUL among
// them) read as nothing or as something else in logs and lists; a lone UTF-16 surrogate is not text
// at all (no UTF-8 holds it: it came back as U+FFFD, a different login).
const USERNAME = /^[^\s:\p{Cc}\p{Cs}]{1,64}$/u;

/** Why `name` cannot be a username (as the field `field`), or undefined. */
export function usernameProblem(name: string, field: string): string | undefined {
  return USERNAME.test(name) ? undefined : `${field} must be 1 to 64 characters without spaces, colons or control characters`;
}
