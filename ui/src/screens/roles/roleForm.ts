/**
 * The role form's values and rules (spec 01 §5): name required, at most 50; description at most
 * 200; the write-off limit optional, an amount in USD of at least 0 with at most 2 decimals.
 */
import type { RoleInput } from '../../api/identity';

export const ROLE_NAME_MAX_LENGTH = 50;
export const DESCRIPTION_MAX_LENGTH = 200;
/** The longest limit the server takes: 18 digits, the point and 2 decimals. */
export const WRITEOFF_LIMIT_MAX_LENGTH = 21;

export interface RoleFormValues {
  roleName: string;
  description: string;
  /** As typed; empty: the role may not write off. */
  writeOffLimit: string;
}

export function emptyRoleValues(): RoleFormValues {
  return { roleName: '', description: '', writeOffLimit: '' };
}

/** The form's values of a role as the server answers it. */
export function roleValues(role: { roleName?: string | null; description?: string | null; writeOffLimit?: string | number | null }): RoleFormValues {
  return {
    roleName: role.roleName ?? '',
    description: role.description ?? '',
    writeOffLimit: role.writeOffLimit === null || role.writeOffLimit === undefined ? '' : String(role.writeOffLimit),
  };
}

/** An amount as people type it: digits, then a point (or a decimal comma) and decimals. */
const AMOUNT = /^(\d+)(?:[.,](\d+))?$/;

/** Why a typed write-off limit is refused (a translation key), or null when it is empty or fine. */
export function writeOffLimitError(text: string): string | null {
  const value = text.trim();
  if (value === '') return null;
  if (/^-\s*\d/.test(value)) return 'roles.form.errors.writeOffLimitNegative';
  const m = AMOUNT.exec(value);
  if (!m) return 'roles.form.errors.writeOffLimitInvalid';
  if ((m[2] ?? '').length > 2) return 'roles.form.errors.writeOffLimitDecimals';
  return null;
}

/** A valid typed limit as the server takes it: "250" -> "250.00", "12,5" -> "12.50"; empty -> null. */
export function writeOffLimitInput(text: string): string | null {
  const m = AMOUNT.exec(text.trim());
  if (!m) return null;
  const whole = m[1]!.replace(/^0+(?=\d)/, '');
  return `${whole}.${(m[2] ?? '').padEnd(2, '0')}`;
}

export function validateRole(values: RoleFormValues): Partial<Record<keyof RoleFormValues, string>> {
  const errors: Partial<Record<keyof RoleFormValues, string>> = {};
  const name = values.roleName.trim();
  if (name === '') errors.roleName = 'roles.form.errors.roleNameRequired';
  else if ([...name].length > ROLE_NAME_MAX_LENGTH) errors.roleName = 'roles.form.errors.roleNameTooLong';
  if ([...values.description.trim()].length > DESCRIPTION_MAX_LENGTH) errors.description = 'roles.form.errors.descriptionTooLong';
  const limit = writeOffLimitError(values.writeOffLimit);
  if (limit) errors.writeOffLimit = limit;
  return errors;
}

export function toRoleInput(values: RoleFormValues): RoleInput {
  return { roleName: values.roleName.trim(), description: values.description.trim(), writeOffLimit: writeOffLimitInput(values.writeOffLimit) };
}
