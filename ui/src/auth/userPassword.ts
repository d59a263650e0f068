/**
 * The password rules the server checks (spec 01 §5), for the user form and the reset screen
 * alike: 8 to 20 characters with an uppercase letter, a lowercase letter, a digit and a special
 * character. The bounds and the special characters come from the server's app configuration,
 * so the checklist and the meter never call "Strong" what the server refuses. The meter counts
 * the rules met: under 3 is weak, 3 or 4 medium, all 5 strong.
 */
import type { PasswordStrength } from './passwordStrength';
import { getAppConfig, type PasswordRulesConfig } from '../config/appConfig';

/** The server's password rules (from the app configuration). */
export function passwordRules(): PasswordRulesConfig {
  return getAppConfig().passwordRules;
}

export type PasswordRule = 'length' | 'uppercase' | 'lowercase' | 'digit' | 'special';
export const PASSWORD_RULES: readonly PasswordRule[] = ['length', 'uppercase', 'lowercase', 'digit', 'special'];

export type PasswordChecks = Record<PasswordRule, boolean>;

export function checkUserPassword(password: string): PasswordChecks {
  const length = [...password].length;
  const { minLength, maxLength, specials } = passwordRules();
  return {
    length: length >= minLength && length <= maxLength,
    uppercase: /[A-Z]/.test(password),
    lowercase: /[a-z]/.test(password),
    digit: /[0-9]/.test(password),
    special: [...password].some((ch) => specials.includes(ch)),
  };
}

export function rulesMet(password: string): number {
  const checks = checkUserPassword(password);
  return PASSWORD_RULES.filter((rule) => checks[rule]).length;
}

export function isValidUserPassword(password: string): boolean {
  return rulesMet(password) === PASSWORD_RULES.length;
}

export function userPasswordStrength(password: string): PasswordStrength {
  if (password === '') return 'empty';
  const met = rulesMet(password);
  if (met === PASSWORD_RULES.length) return 'strong';
  return met >= 3 ? 'medium' : 'weak';
}

/** Enforces the maximum by truncation (a paste of 30 characters keeps the first 20). */
export function truncatePassword(password: string): string {
  const chars = [...password];
  const { maxLength } = passwordRules();
  return chars.length > maxLength ? chars.slice(0, maxLength).join('') : password;
}

/**
 * Whether a key press would add a character beyond the maximum: a printable key, no
 * selection to replace, no shortcut modifier, and the field already full.
 */
export function blocksKey(
  value: string,
  key: string,
  selectionLength: number,
  modifiers: { ctrlKey?: boolean; metaKey?: boolean; altKey?: boolean } = {},
): boolean {
  if (key.length !== 1 || modifiers.ctrlKey || modifiers.metaKey || modifiers.altKey) return false;
  return selectionLength === 0 && [...value].length >= passwordRules().maxLength;
}
