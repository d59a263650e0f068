/**
 * The signed-in user's own profile (spec 01 §2 "Profile dialog", §4, §5, §8): names, email,
 * mobile, date of birth and the configuration (date format, language). After a successful
 * save the new profile goes into the stored currentUser and the page reloads, so the language
 * and date format apply everywhere.
 */
import { useEffect, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useFormik } from 'formik';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { Checkbox } from 'primereact/checkbox';
import { InputText } from 'primereact/inputtext';
import { ApiError } from '../api/client';
import { profileApi, type Profile } from '../api/identity';
import { updateCurrentUser } from '../auth/session';
import { useCurrentUser } from '../auth/useSession';
import { ConfigurationFields } from '../components/ConfigurationFields';
import { DateOfBirthInput } from '../components/DateOfBirthInput';
import { DEFAULT_USER_DATE_FORMAT, fromIsoDate, startOfDay, toIsoDate } from '../lib/dates';
import { isValidEmail } from '../lib/validation';
import { useToast } from './toast';

/** Reloading is behind an object so tests can replace it (jsdom cannot reload). */
export const pageReload = {
  reload: () => window.location.reload(),
  /** Long enough to read the success toast before the page starts again. */
  delayMs: 800,
};

interface ProfileValues {
  firstName: string;
  lastName: string;
  email: string;
  mobileNumber: string;
  dateOfBirth: Date | null;
  dateFormat: string;
  languageCode: string;
  /** The daily email of alerts and overdue items. */
  dailyDigest: boolean;
  /** Needed for a new email or password (a stolen session alone must not change them). */
  currentPassword: string;
  newPassword: string;
  /** The confirmation code of a two-factor user changing their email. */
  code: string;
}

type ProfileField = keyof ProfileValues;

const EMPTY: ProfileValues = {
  firstName: '',
  lastName: '',
  email: '',
  mobileNumber: '',
  dateOfBirth: null,
  dateFormat: DEFAULT_USER_DATE_FORMAT,
  languageCode: 'en',
  dailyDigest: false,
  currentPassword: '',
  newPassword: '',
  code: '',
};

function valuesOf(profile: Profile): ProfileValues {
  return {
    firstName: profile.firstName ?? '',
    lastName: profile.lastName ?? '',
    email: profile.email ?? '',
    mobileNumber: profile.mobileNumber ?? '',
    dateOfBirth: fromIsoDate(profile.dateOfBirth),
    dateFormat: profile.dateFormat || DEFAULT_USER_DATE_FORMAT,
    languageCode: profile.languageCode || 'en',
    dailyDigest: !!profile.dailyDigest,
    currentPassword: '',
    newPassword: '',
    code: '',
  };
}

function validate(values: ProfileValues): Partial<Record<ProfileField, string>> {
  const errors: Partial<Record<ProfileField, string>> = {};
  if (values.firstName.trim() === '') errors.firstName = 'users.form.errors.firstNameRequired';
  if (values.lastName.trim() === '') errors.lastName = 'users.form.errors.lastNameRequired';
  if (values.email.trim() === '') errors.email = 'users.form.errors.emailRequired';
  else if (!isValidEmail(values.email)) errors.email = 'users.form.errors.emailInvalid';
  if (values.dateOfBirth && values.dateOfBirth > startOfDay(new Date())) errors.dateOfBirth = 'users.messages.dateInFuture';
  return errors;
}

/** The pop-up panels of the dialog's dropdowns and calendar, while one is open. */
const OPEN_OVERLAYS = '.p-dropdown-panel, .p-datepicker:not(.p-datepicker-inline), .p-multiselect-panel';

export function ProfileDialog({ visible, onHide }: { visible: boolean; onHide: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const currentUser = useCurrentUser();
  const [profile, setProfile] = useState<Profile | null>(null);
  const [busy, setBusy] = useState(false);
  const [serverErrors, setServerErrors] = useState<Partial<Record<ProfileField, string>>>({});
  const [challengeId, setChallengeId] = useState('');

  // Escape closes an open dropdown or calendar first and only then the dialog: PrimeReact's own
  // Escape handling closed both at once and lost the edits. Captured before the overlay sees it.
  useEffect(() => {
    if (!visible) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || document.querySelector(OPEN_OVERLAYS)) return;
      onHide();
    };
    document.addEventListener('keydown', onKey, true);
    return () => document.removeEventListener('keydown', onKey, true);
  }, [visible, onHide]);
  const formik = useFormik<ProfileValues>({ initialValues: EMPTY, onSubmit: () => {} });
  const { values, touched } = formik;
  const errors = validate(values);
  const canSave = !!profile && Object.keys(errors).length === 0 && !busy;
  const emailChanged = !!profile && values.email.trim().toLowerCase() !== profile.email.toLowerCase();
  const needsProof = emailChanged || values.newPassword !== '';
  const needsCode = emailChanged && !!profile?.enableTwoFactor;

  // Load afresh each time the dialog opens: another tab or an administrator may have changed it.
  useEffect(() => {
    if (!visible) return;
    let cancelled = false;
    setProfile(null);
    setServerErrors({});
    setChallengeId('');
    profileApi
      .get()
      .then((loaded) => {
        if (cancelled) return;
        setProfile(loaded);
        formik.resetForm({ values: valuesOf(loaded) });
      })
      .catch((error: unknown) => {
        if (!cancelled) toast.error(error instanceof Error ? error.message : t('errors.generic'));
      });
    return () => {
      cancelled = true;
    };
    // Only on opening.
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reloads the profile when the dialog opens, not on every formik change
  }, [visible]);

  function setValue<K extends ProfileField>(field: K, value: ProfileValues[K]) {
    void formik.setFieldValue(field, value, false);
    if (serverErrors[field]) setServerErrors(({ [field]: _, ...rest }) => rest);
  }

  function errorOf(field: ProfileField): string | null {
    if (serverErrors[field]) return serverErrors[field];
    const key = errors[field];
    return key && touched[field] ? t(key) : null;
  }

  async function save(event: FormEvent) {
    event.preventDefault();
    if (!canSave || !profile) return;
    setBusy(true);
    try {
      const saved = await profileApi.update({
        userId: profile.userId,
        firstName: values.firstName.trim(),
        lastName: values.lastName.trim(),
        email: values.email.trim(),
        mobileNumber: values.mobileNumber.trim(),
        dateOfBirth: values.dateOfBirth ? toIsoDate(values.dateOfBirth) : null,
        dateFormat: values.dateFormat,
        languageCode: values.languageCode,
        dailyDigest: values.dailyDigest,
        ...(needsProof ? { currentPassword: values.currentPassword } : {}),
        ...(values.newPassword ? { newPassword: values.newPassword } : {}),
        ...(needsCode ? { challengeId, code: values.code.trim() } : {}),
      });
      toast.success(t('profile.updated'));
      updateCurrentUser({
        userId: saved.userId,
        id: saved.id,
        username: saved.username,
        firstName: saved.firstName,
        lastName: saved.lastName,
        email: saved.email,
        mobileNumber: saved.mobileNumber,
        dateOfBirth: saved.dateOfBirth,
        dateFormat: saved.dateFormat,
        languageCode: saved.languageCode,
      });
      onHide();
      window.setTimeout(() => pageReload.reload(), pageReload.delayMs);
    } catch (error) {
      if (error instanceof ApiError && error.field && error.field in EMPTY) {
        const field = error.field as ProfileField;
        setServerErrors((prev) => ({ ...prev, [field]: error.message }));
      }
      toast.error(error instanceof Error ? error.message : t('errors.generic'));
    } finally {
      setBusy(false);
    }
  }

  const username = profile?.username ?? currentUser?.username ?? '';

  async function sendCode() {
    try {
      const sent = await profileApi.sendCode();
      setChallengeId(sent.challengeId);
      toast.success(t('security.codeSent'));
    } catch (error) {
      toast.error(error instanceof Error ? error.message : t('errors.generic'));
    }
  }

  function secretField(field: 'currentPassword' | 'newPassword' | 'code', label: string, autoComplete: string) {
    const error = errorOf(field);
    return (
      <div className="field">
        <label htmlFor={`profile-${field}`}>{label}</label>
        <InputText
          id={`profile-${field}`}
          type={field === 'code' ? 'text' : 'password'}
          inputMode={field === 'code' ? 'numeric' : undefined}
          value={values[field]}
          autoComplete={autoComplete}
          invalid={!!error}
          disabled={!profile}
          onChange={(e) => setValue(field, e.target.value)}
        />
        {error && <small className="field__error">{error}</small>}
      </div>
    );
  }

  function textField(field: 'firstName' | 'lastName' | 'email' | 'mobileNumber', type = 'text', autoComplete?: string) {
    const error = errorOf(field);
    return (
      <div className="field">
        <label htmlFor={`profile-${field}`}>{t(`userFields.${field}`)}</label>
        <InputText
          id={`profile-${field}`}
          type={type}
          value={values[field]}
          autoComplete={autoComplete}
          invalid={!!error}
          disabled={!profile}
          onChange={(e) => setValue(field, e.target.value)}
          onBlur={() => void formik.setFieldTouched(field, true, false)}
        />
        {error && <small className="field__error">{error}</small>}
      </div>
    );
  }

  const footer = (
    <div className="dialog-actions">
      <Button type="button" label={t('common.cancel')} severity="secondary" outlined onClick={onHide} data-testid="profile-cancel" />
      <Button
        type="submit"
        form="profile-form"
        label={t('common.save')}
        icon="pi pi-check"
        disabled={!canSave}
        loading={busy}
        data-testid="profile-save"
      />
    </div>
  );

  return (
    <Dialog
      visible={visible}
      onHide={onHide}
      header={t('profile.myProfile')}
      modal
      draggable={false}
      resizable={false}
      closeOnEscape={false}
      style={{ width: '1000px', maxWidth: '95vw', maxHeight: '90%' }}
      data-testid="profile-dialog"
      footer={footer}
    >
      <form id="profile-form" className="profile-form" onSubmit={save} noValidate>
        <div className="profile-form__identity">
          <span className="user-avatar profile-avatar" aria-hidden="true" data-testid="profile-avatar">
            {username.charAt(0).toUpperCase() || '?'}
          </span>
          <div>
            <strong>{`${values.firstName} ${values.lastName}`.trim() || username}</strong>
            <div className="muted">{username}</div>
          </div>
        </div>
        <div className="form-grid">
          {textField('firstName', 'text', 'given-name')}
          {textField('lastName', 'text', 'family-name')}
          <div className="field">
            <label htmlFor="profile-username">{t('userFields.username')}</label>
            <InputText id="profile-username" value={username} readOnly disabled />
          </div>
          {textField('email', 'email', 'email')}
          {textField('mobileNumber', 'tel', 'tel')}
          <div className="field">
            <label htmlFor="profile-dateOfBirth">{t('userFields.dateOfBirth')}</label>
            <DateOfBirthInput
              inputId="profile-dateOfBirth"
              value={values.dateOfBirth}
              onChange={(date) => setValue('dateOfBirth', date)}
              dateFormat={currentUser?.dateFormat}
              readOnlyInput
              disabled={!profile}
              invalid={!!errorOf('dateOfBirth')}
            />
            {errorOf('dateOfBirth') && <small className="field__error">{errorOf('dateOfBirth')}</small>}
          </div>
        </div>
        <h3 className="form-section-title">{t('security.accountSection')}</h3>
        <p className="muted" data-testid="profile-proof-hint">
          {t('security.proofHint')} {needsCode && t('security.codeHint')}
        </p>
        <div className="form-grid">
          {secretField('newPassword', t('security.newPassword'), 'new-password')}
          {needsProof && secretField('currentPassword', t('security.currentPassword'), 'current-password')}
          {needsCode && secretField('code', t('security.code'), 'one-time-code')}
          {needsCode && (
            <div className="field field--action">
              <Button type="button" label={t('security.sendCode')} icon="pi pi-send" severity="secondary" outlined onClick={() => void sendCode()} data-testid="profile-send-code" />
            </div>
          )}
        </div>
        <h3 className="form-section-title">{t('users.form.configurationSection')}</h3>
        <ConfigurationFields
          idPrefix="profile"
          dateFormat={values.dateFormat}
          languageCode={values.languageCode}
          onChange={(field, value) => setValue(field, value)}
          errors={{ dateFormat: errorOf('dateFormat'), languageCode: errorOf('languageCode') }}
        />
        <div className="field field--inline">
          <Checkbox
            inputId="profile-dailyDigest"
            checked={values.dailyDigest}
            disabled={!profile}
            onChange={(e) => setValue('dailyDigest', !!e.checked)}
            data-testid="profile-daily-digest"
          />
          <label htmlFor="profile-dailyDigest">{t('profile.dailyDigest')}</label>
        </div>
        <p className="muted">{t('profile.dailyDigestHint')}</p>
      </form>
    </Dialog>
  );
}
