/** The role form's values and rules (spec 01 §5): name required, at most 50; description at most 200. */
import type { RoleInput } from '../../api/identity';

export const ROLE_NAME_MAX_LENGTH = 50;
export const DESCRIPTION_MAX_LENGTH = 200;

export interface RoleFormValues {
  roleName: string;
  description: string;
}

export function emptyRoleValues(): RoleFormValues {
  return { roleName: '', description: '' };
}

export function validateRole(values: RoleFormValues): Partial<Record<keyof RoleFormValues, string>> {
  const errors: Partial<Record<keyof RoleFormValues, string>> = {};
  const name = values.roleName.trim();
  if (name === '') errors.roleName = 'roles.form.errors.roleNameRequired';
  else if ([...name].length > ROLE_NAME_MAX_LENGTH) errors.roleName = 'roles.form.errors.roleNameTooLong';
  if ([...values.description.trim()].length > DESCRIPTION_MAX_LENGTH) errors.description = 'roles.form.errors.descriptionTooLong';
  return errors;
}

export function toRoleInput(values: RoleFormValues): RoleInput {
  return { roleName: values.roleName.trim(), description: values.description.trim() };
}
