/**
 * Add/edit user (spec 01 §2 "Add/edit user screen", §4 "User form", §5, §8). Edit mode when
 * the route carries an id. Roles are a separate call after the user is saved: always after
 * creating (when any were chosen), only when the selection changed after editing.
 */
import { useCallback, useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { useFormik } from 'formik';
import { InputText } from 'primereact/inputtext';
import { Checkbox } from 'primereact/checkbox';
import { Dropdown } from 'primereact/dropdown';
import { InputSwitch } from 'primereact/inputswitch';
import { Button } from 'primereact/button';
import { ApiError } from '../../api/client';
import { rolesApi, usersApi, type Role, type User } from '../../api/identity';
import { getCurrentUser, updateCurrentUser } from '../../auth/session';
import { useCurrentUser } from '../../auth/useSession';
import { blocksKey, passwordRules, truncatePassword } from '../../auth/userPassword';
import { isSupportedLanguage } from '../../i18n';
import { useToast } from '../../shell/toast';
import { CollapsibleSection } from '../../components/CollapsibleSection';
import { CheckboxList } from '../../components/CheckboxList';
import { ConfigurationFields, languageName } from '../../components/ConfigurationFields';
import { DateOfBirthInput } from '../../components/DateOfBirthInput';
import { FormActions } from '../../components/FormActions';
import { PasswordRulesPanel } from '../../components/PasswordRulesPanel';
import { ScreenHeader } from '../../components/ScreenHeader';
import type { DateError } from '../../lib/dates';
import { sameIds } from '../../lib/selection';
import { isStaleEdit } from '../../lib/staleEdit';
import { setTwoFactorEnabled, TWO_FACTOR_TYPES, type TwoFactorType } from './twoFactor';
import {
  emptyUserValues,
  toUserInput,
  USER_FORM_FIELDS,
  validateUser,
  valuesFromUser,
  type FormMode,
  type UserFormField,
  type UserFormValues,
} from './userForm';

const LIST_ROUTE = '/dashboard/userslist';
const ADD_ROUTE = '/dashboard/users/add';
const TWO_FACTOR_KEYS = ['none', 'email', 'mobile'] as const;

type SaveAction = 'save' | 'saveAndNew';

/** The route entry: a fresh form per id, so add -> edit -> add never shows stale state. */
export default function UserFormScreen() {
  const { id } = useParams();
  return <UserForm key={id ?? 'new'} editId={id === undefined ? null : Number(id)} />;
}

function sortRoles(roles: Role[]): Role[] {
  return [...roles].sort((a, b) => a.roleName.localeCompare(b.roleName));
}

function isSelf(editId: number | null): boolean {
  const current = getCurrentUser();
  if (!current || editId === null) return false;
  return (current.userId ?? current.id) === editId;
}

function PasswordInput({
  id,
  value,
  onChange,
  onBlur,
  invalid,
  disabled = false,
  describedBy,
}: {
  id: string;
  value: string;
  onChange: (value: string) => void;
  onBlur: () => void;
  invalid: boolean;
  disabled?: boolean;
  describedBy?: string;
}) {
  const { t } = useTranslation();
  const [shown, setShown] = useState(false);
  return (
    <div className="p-inputgroup">
      <InputText
        id={id}
        type={shown ? 'text' : 'password'}
        value={value}
        maxLength={passwordRules().maxLength}
        autoComplete="new-password"
        disabled={disabled}
        invalid={invalid}
        aria-describedby={describedBy}
        onChange={(e) => onChange(truncatePassword(e.target.value))}
        onKeyDown={(e) => {
          const input = e.currentTarget;
          const selection = (input.selectionEnd ?? 0) - (input.selectionStart ?? 0);
          if (blocksKey(input.value, e.key, selection, e)) e.preventDefault();
        }}
        onBlur={onBlur}
      />
      <Button
        type="button"
        icon={shown ? 'pi pi-eye-slash' : 'pi pi-eye'}
        severity="secondary"
        outlined
        disabled={disabled}
        aria-label={shown ? t('login.hidePassword') : t('login.showPassword')}
        aria-pressed={shown}
        onClick={() => setShown((value) => !value)}
      />
    </div>
  );
}

function UserForm({ editId }: { editId: number | null }) {
  const mode: FormMode = editId === null ? 'add' : 'edit';
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const currentUser = useCurrentUser();

  const [roles, setRoles] = useState<Role[]>([]);
  const [rolesLoading, setRolesLoading] = useState(true);
  const [selectedRoles, setSelectedRoles] = useState<number[]>([]);
  const [initialRoles, setInitialRoles] = useState<number[]>([]);
  const [loading, setLoading] = useState(mode === 'edit');
  const [busy, setBusy] = useState(false);
  const [serverErrors, setServerErrors] = useState<Partial<Record<UserFormField, string>>>({});
  /** The version of the user as read: a save sends it, so a newer save by someone else is not overwritten. */
  const [version, setVersion] = useState<string | undefined>(undefined);

  const formik = useFormik<UserFormValues>({ initialValues: emptyUserValues(), onSubmit: () => {} });
  const { values, touched } = formik;
  const errors = validateUser(values, mode);
  const valid = Object.keys(errors).length === 0;
  const rolesChanged = !sameIds(selectedRoles, initialRoles);
  const canSave = valid && !loading && (mode === 'add' || formik.dirty || rolesChanged);

  const loadRoles = useCallback(async () => {
    setRolesLoading(true);
    try {
      setRoles(sortRoles(await rolesApi.list()));
    } catch {
      toast.error(t('users.messages.rolesLoadFailed'));
    } finally {
      setRolesLoading(false);
    }
  }, [toast, t]);

  // Load once per mounted form (the key above remounts it for another id).
  useEffect(() => {
    void loadRoles();
    if (editId === null) return;
    let cancelled = false;
    (async () => {
      try {
        const [user, userRoles] = await Promise.all([usersApi.get(editId), usersApi.roles(editId)]);
        if (cancelled) return;
        formik.resetForm({ values: valuesFromUser(user) });
        setVersion(user.version);
        const ids = userRoles.map((role) => role.roleId);
        setSelectedRoles(ids);
        setInitialRoles(ids);
      } catch {
        if (!cancelled) toast.error(t('users.messages.loadFailed'));
      } finally {
        if (!cancelled) setLoading(false);
      }
    })();
    return () => {
      cancelled = true;
    };
    // Deliberately once per form instance (formik, toast and t are stable enough here).
    // eslint-disable-next-line react-hooks/exhaustive-deps -- loads the record once, not on every formik change
  }, []);

  function setValue<K extends UserFormField>(field: K, value: UserFormValues[K]) {
    void formik.setFieldValue(field, value, false);
    if (serverErrors[field]) setServerErrors(({ [field]: _, ...rest }) => rest);
  }

  function touch(field: UserFormField) {
    void formik.setFieldTouched(field, true, false);
  }

  function errorOf(field: UserFormField): string | null {
    if (serverErrors[field]) return serverErrors[field];
    const key = errors[field];
    return key && (touched[field] || formik.submitCount > 0) ? t(key) : null;
  }

  function onDateInvalid(error: DateError) {
    if (error === 'invalidFormat') toast.error(t('users.messages.dateFormatInvalid'));
    else if (error === 'beforeMinimum') toast.error(t('users.messages.dateBeforeMinimum'), t('users.messages.invalidDate'));
    else toast.error(t('users.messages.dateInFuture'), t('users.messages.invalidDate'));
  }

  function reportSaveError(error: unknown) {
    if (!(error instanceof ApiError)) {
      toast.error(t('users.messages.unexpected'));
      return;
    }
    if (isStaleEdit(error)) {
      toast.error(t('security.changedByOthers'));
      return;
    }
    const field = error.field as UserFormField | undefined;
    if (field && USER_FORM_FIELDS.includes(field)) setServerErrors((prev) => ({ ...prev, [field]: error.message }));
    // Spec 01 §8: the server's error, or an empty message.
    toast.error(error.message ?? '');
  }

  async function saveRoles(userId: number): Promise<boolean> {
    try {
      await usersApi.setRoles(userId, selectedRoles);
      return true;
    } catch (error) {
      // A 409 explains itself (e.g. the last active Administrator); otherwise the spec's text.
      const detail = error instanceof ApiError && error.status === 409 ? error.message : t('users.messages.rolesUpdateFailed');
      toast.error(detail);
      return false;
    }
  }

  /** Applies the saved user to the session when administrators edit themselves. */
  async function refreshSelf(user: User) {
    const before = getCurrentUser();
    updateCurrentUser({
      username: user.username,
      firstName: user.firstName,
      lastName: user.lastName,
      email: user.email,
      mobileNumber: user.mobileNumber,
      dateOfBirth: user.dateOfBirth,
      dateFormat: user.dateFormat,
      languageCode: user.languageCode,
    });
    if (user.languageCode !== before?.languageCode && isSupportedLanguage(user.languageCode)) {
      await i18n.changeLanguage(user.languageCode);
    }
  }

  async function resetForNew() {
    formik.resetForm({ values: emptyUserValues() });
    setServerErrors({});
    setSelectedRoles([]);
    setInitialRoles([]);
    await loadRoles();
  }

  async function save(action: SaveAction) {
    if (!canSave || busy) return;
    let input;
    try {
      input = toUserInput(values, mode);
    } catch {
      toast.error(t('users.messages.formError'));
      return;
    }
    setBusy(true);
    try {
      if (mode === 'add') {
        let created: User;
        try {
          created = (await usersApi.create(input)).user;
        } catch (error) {
          reportSaveError(error);
          return;
        }
        const newId = created.userId || created.id;
        toast.success(t('users.messages.created'));
        if (selectedRoles.length > 0 && !(await saveRoles(newId))) {
          // The user exists now: continue on its edit screen, where the roles can be retried.
          navigate(`/dashboard/users/edit/${newId}`, { replace: true });
          return;
        }
        if (action === 'saveAndNew') await resetForNew();
        else navigate(LIST_ROUTE);
        return;
      }

      const id = editId as number;
      let updated: User;
      try {
        updated = await usersApi.update(id, { ...input, version });
      } catch (error) {
        reportSaveError(error);
        return;
      }
      setVersion(updated.version);
      toast.success(t('users.messages.updated'));
      if (isSelf(id)) await refreshSelf(updated);
      if (rolesChanged && !(await saveRoles(id))) {
        // The user is saved; stay so the role change can be retried.
        formik.resetForm({ values: { ...valuesFromUser(updated) } });
        return;
      }
      navigate(action === 'saveAndNew' ? ADD_ROUTE : LIST_ROUTE);
    } catch {
      toast.error(t('users.messages.unexpected'));
    } finally {
      setBusy(false);
    }
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    void save('save');
  }

  async function unlock() {
    if (editId === null) return;
    try {
      await usersApi.unlock(editId);
      toast.success(t('security.unlocked'));
    } catch (error) {
      toast.error(error instanceof Error ? error.message : t('users.messages.unexpected'));
    }
  }

  function textField(field: 'username' | 'firstName' | 'lastName' | 'email' | 'mobileNumber', options: { required?: boolean; type?: string; autoComplete?: string } = {}) {
    const error = errorOf(field);
    return (
      <div className="field">
        <label htmlFor={`user-${field}`}>
          {t(`userFields.${field}`)}
          {options.required && <span className="required" aria-hidden="true"> *</span>}
        </label>
        <InputText
          id={`user-${field}`}
          name={field}
          type={options.type ?? 'text'}
          value={values[field]}
          autoComplete={options.autoComplete ?? 'off'}
          required={options.required}
          invalid={!!error}
          aria-describedby={error ? `user-${field}-error` : undefined}
          onChange={(e) => setValue(field, e.target.value)}
          onBlur={() => touch(field)}
        />
        {error && (
          <small id={`user-${field}-error`} className="field__error" data-testid={`error-${field}`}>
            {error}
          </small>
        )}
      </div>
    );
  }

  const twoFactorOptions = TWO_FACTOR_TYPES.map((type) => ({ value: type, label: t(`users.form.twoFactorTypes.${TWO_FACTOR_KEYS[type]}`) }));
  const dobError = errorOf('dateOfBirth');
  const passwordField: UserFormField = mode === 'add' ? 'password' : 'newPassword';
  const passwordError = errorOf(passwordField);
  const title = t(mode === 'add' ? 'screens.userAdd.title' : 'screens.userEdit.title');
  let passwordBlock: ReactNode;

  if (mode === 'add') {
    passwordBlock = (
      <div className="field">
        <label htmlFor="user-password">
          {t('userFields.password')}
          <span className="required" aria-hidden="true"> *</span>
        </label>
        <PasswordInput
          id="user-password"
          value={values.password}
          onChange={(value) => setValue('password', value)}
          onBlur={() => touch('password')}
          invalid={!!passwordError}
          describedBy="user-password-panel"
        />
        {passwordError && <small className="field__error" data-testid="error-password">{passwordError}</small>}
        <PasswordRulesPanel password={values.password} id="user-password-panel" />
      </div>
    );
  } else {
    passwordBlock = (
      <>
        <div className="field field--inline">
          <InputSwitch
            inputId="user-changePassword"
            checked={values.changePassword}
            onChange={(e) => {
              const on = !!e.value;
              setValue('changePassword', on);
              // Unchecking Change Password clears the new password (spec 01 §4).
              if (!on) {
                setValue('newPassword', '');
                void formik.setFieldTouched('newPassword', false, false);
              }
            }}
            data-testid="change-password"
          />
          <label htmlFor="user-changePassword">{t('userFields.changePassword')}</label>
        </div>
        <div className="field">
          <label htmlFor="user-newPassword">
            {t('userFields.newPassword')}
            {values.changePassword && <span className="required" aria-hidden="true"> *</span>}
          </label>
          <PasswordInput
            id="user-newPassword"
            value={values.newPassword}
            onChange={(value) => setValue('newPassword', value)}
            onBlur={() => touch('newPassword')}
            invalid={!!passwordError}
            disabled={!values.changePassword}
            describedBy="user-password-panel"
          />
          {passwordError && <small className="field__error" data-testid="error-newPassword">{passwordError}</small>}
          {values.changePassword && <PasswordRulesPanel password={values.newPassword} id="user-password-panel" />}
        </div>
      </>
    );
  }

  return (
    <section className="screen" data-testid="user-form-screen">
      <ScreenHeader title={title} back={{ to: LIST_ROUTE, label: t('common.backToList') }} />
      <form className="card entity-form" onSubmit={onSubmit} noValidate data-testid="user-form" aria-busy={loading || busy}>
        <h2 className="form-section-title">{t('users.form.details')}</h2>
        <div className="form-grid">
          {textField('username', { required: true, autoComplete: 'off' })}
          {textField('email', { required: true, type: 'email' })}
          {textField('firstName', { required: true })}
          {textField('lastName', { required: true })}
          <div className="field">
            <label htmlFor="user-dateOfBirth">{t('userFields.dateOfBirth')}</label>
            <DateOfBirthInput
              inputId="user-dateOfBirth"
              value={values.dateOfBirth}
              onChange={(date) => {
                setValue('dateOfBirth', date);
                touch('dateOfBirth');
              }}
              onInvalid={onDateInvalid}
              dateFormat={currentUser?.dateFormat}
              invalid={!!dobError}
            />
            {dobError && <small className="field__error" data-testid="error-dateOfBirth">{dobError}</small>}
          </div>
          {textField('mobileNumber', { type: 'tel', autoComplete: 'tel' })}
        </div>

        <h2 className="form-section-title">{t('users.form.security')}</h2>
        <div className="form-grid">
          <div className="form-column">{passwordBlock}</div>
          <div className="form-column">
            <div className="field field--inline">
              <Checkbox
                inputId="user-enableTwoFactor"
                checked={values.enableTwoFactor}
                onChange={(e) => {
                  const next = setTwoFactorEnabled(values, !!e.checked);
                  setValue('enableTwoFactor', next.enableTwoFactor);
                  setValue('twoFactorType', next.twoFactorType);
                }}
                data-testid="enable-two-factor"
              />
              <label htmlFor="user-enableTwoFactor">{t('userFields.enableTwoFactor')}</label>
            </div>
            <div className="field">
              <label htmlFor="user-twoFactorType">{t('userFields.twoFactorType')}</label>
              <Dropdown
                inputId="user-twoFactorType"
                value={values.twoFactorType}
                options={twoFactorOptions}
                disabled={!values.enableTwoFactor}
                onChange={(e) => setValue('twoFactorType', e.value as TwoFactorType)}
                invalid={!!errorOf('twoFactorType')}
                data-testid="two-factor-type"
              />
              {errorOf('twoFactorType') && <small className="field__error">{errorOf('twoFactorType')}</small>}
            </div>
          </div>
        </div>

        <CollapsibleSection
          title={t('users.form.rolesSection')}
          summary={t('users.form.rolesSelected', { count: selectedRoles.length })}
          testId="roles-section"
        >
          {rolesLoading && roles.length === 0 ? (
            <p className="muted">{t('users.form.loadingRoles')}</p>
          ) : (
            <CheckboxList
              name="role"
              items={roles.map((role) => ({ id: role.id, label: role.roleName }))}
              selected={selectedRoles}
              onChange={setSelectedRoles}
              emptyText={t('users.form.noRoles')}
            />
          )}
        </CollapsibleSection>

        <CollapsibleSection
          title={t('users.form.configurationSection')}
          summary={`${values.dateFormat} · ${languageName(values.languageCode)}`}
          testId="configuration-section"
        >
          <ConfigurationFields
            idPrefix="user"
            dateFormat={values.dateFormat}
            languageCode={values.languageCode}
            onChange={(field, value) => setValue(field, value)}
            errors={{ dateFormat: errorOf('dateFormat'), languageCode: errorOf('languageCode') }}
          />
        </CollapsibleSection>

        {mode === 'edit' && (
          <div className="form-extra-actions">
            <Button
              type="button"
              label={t('security.unlock')}
              icon="pi pi-lock-open"
              severity="secondary"
              outlined
              title={t('security.unlockHint')}
              onClick={() => void unlock()}
              data-testid="user-unlock"
            />
          </div>
        )}
                <FormActions canSave={canSave} busy={busy} onCancel={() => navigate(LIST_ROUTE)} onSaveAndNew={() => void save('saveAndNew')} />
      </form>
    </section>
  );
}
