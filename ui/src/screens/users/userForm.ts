/**
 * The user form's values, rules and payload (spec 01 §3-§5), apart from the screen so they can
 * be tested without rendering. Errors are translation keys.
 */
import type { User, UserInput } from '../../api/identity';
import { isValidUserPassword } from '../../auth/userPassword';
import { DEFAULT_USER_DATE_FORMAT, fromIsoDate, toIsoDate } from '../../lib/dates';
import { isValidEmail } from '../../lib/validation';
import { asTwoFactorType, needsMobileNumber, TwoFactorType } from './twoFactor';

export type FormMode = 'add' | 'edit';

export interface UserFormValues {
  username: string;
  firstName: string;
  lastName: string;
  email: string;
  dateOfBirth: Date | null;
  mobileNumber: string;
  password: string;
  changePassword: boolean;
  newPassword: string;
  dateFormat: string;
  languageCode: string;
  enableTwoFactor: boolean;
  twoFactorType: TwoFactorType;
}

export type UserFormField = keyof UserFormValues;
export type UserFormErrors = Partial<Record<UserFormField, string>>;

export function emptyUserValues(): UserFormValues {
  return {
    username: '',
    firstName: '',
    lastName: '',
    email: '',
    dateOfBirth: null,
    mobileNumber: '',
    password: '',
    changePassword: false,
    newPassword: '',
    dateFormat: DEFAULT_USER_DATE_FORMAT,
    languageCode: 'en',
    enableTwoFactor: false,
    twoFactorType: TwoFactorType.None,
  };
}

export function valuesFromUser(user: User): UserFormValues {
  return {
    ...emptyUserValues(),
    username: user.username ?? '',
    firstName: user.firstName ?? '',
    lastName: user.lastName ?? '',
    email: user.email ?? '',
    dateOfBirth: fromIsoDate(user.dateOfBirth),
    mobileNumber: user.mobileNumber ?? '',
    dateFormat: user.dateFormat || DEFAULT_USER_DATE_FORMAT,
    languageCode: user.languageCode || 'en',
    enableTwoFactor: !!user.enableTwoFactor,
    twoFactorType: asTwoFactorType(user.twoFactorType),
  };
}

const REQUIRED: Array<[UserFormField, string]> = [
  ['username', 'users.form.errors.usernameRequired'],
  ['firstName', 'users.form.errors.firstNameRequired'],
  ['lastName', 'users.form.errors.lastNameRequired'],
  ['email', 'users.form.errors.emailRequired'],
];

export function validateUser(values: UserFormValues, mode: FormMode): UserFormErrors {
  const errors: UserFormErrors = {};
  for (const [field, key] of REQUIRED) {
    if (String(values[field]).trim() === '') errors[field] = key;
  }
  if (!errors.email && !isValidEmail(values.email)) errors.email = 'users.form.errors.emailInvalid';
  if (mode === 'add') {
    if (values.password === '') errors.password = 'users.form.errors.passwordRequired';
    else if (!isValidUserPassword(values.password)) errors.password = 'users.form.errors.passwordRules';
  } else if (values.changePassword) {
    if (values.newPassword === '') errors.newPassword = 'users.form.errors.newPasswordRequired';
    else if (!isValidUserPassword(values.newPassword)) errors.newPassword = 'users.form.errors.passwordRules';
  }
  if (needsMobileNumber(values, values.mobileNumber)) errors.mobileNumber = 'users.form.errors.mobileForTwoFactor';
  return errors;
}

/** The request body of POST /users (add) or PUT /users/{id} (edit). */
export function toUserInput(values: UserFormValues, mode: FormMode): UserInput {
  const input: UserInput = {
    username: values.username.trim(),
    firstName: values.firstName.trim(),
    lastName: values.lastName.trim(),
    email: values.email.trim(),
    mobileNumber: values.mobileNumber.trim(),
    dateOfBirth: values.dateOfBirth ? toIsoDate(values.dateOfBirth) : null,
    dateFormat: values.dateFormat,
    languageCode: values.languageCode,
    enableTwoFactor: values.enableTwoFactor,
    twoFactorType: values.enableTwoFactor ? values.twoFactorType : TwoFactorType.None,
  };
  if (mode === 'add') input.password = values.password;
  else {
    input.changePassword = values.changePassword;
    if (values.changePassword) input.newPassword = values.newPassword;
  }
  return input;
}

/** Fields the server may name in a 400/409 that the form shows next to an input. */
export const USER_FORM_FIELDS: readonly UserFormField[] = [
  'username',
  'firstName',
  'lastName',
  'email',
  'dateOfBirth',
  'mobileNumber',
  'password',
  'newPassword',
  'dateFormat',
  'languageCode',
  'twoFactorType',
];
