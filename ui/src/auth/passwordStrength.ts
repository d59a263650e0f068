/**
 * Password strength for the profile and reset screens (spec 01 §5): strong needs a lowercase
 * letter, an uppercase letter, a digit and at least 8 characters; medium needs two of those
 * three classes and at least 6 characters; any other non-empty password is weak.
 * (The stricter rules of the user form are a different checklist.)
 */

export type PasswordStrength = 'empty' | 'weak' | 'medium' | 'strong';

export function passwordStrength(password: string): PasswordStrength {
  if (password === '') return 'empty';
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/].filter((re) => re.test(password)).length;
  if (classes === 3 && password.length >= 8) return 'strong';
  if (classes >= 2 && password.length >= 6) return 'medium';
  return 'weak';
}

/** Width of the meter bar, in percent. */
export function strengthPercent(strength: PasswordStrength): number {
  return { empty: 0, weak: 33, medium: 66, strong: 100 }[strength];
}
