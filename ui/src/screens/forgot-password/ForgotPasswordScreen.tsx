import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { InputText } from 'primereact/inputtext';
import { Button } from 'primereact/button';
import { GENERIC_ERROR } from '../../api/client';
import i18n from '../../i18n';
import { authApi } from '../../api/auth';
import { useToast } from '../../shell/toast';
import { PasswordRulesPanel } from '../../components/PasswordRulesPanel';
import { isValidUserPassword } from '../../auth/userPassword';
import { AuthLayout } from '../AuthLayout';

// Deliberately loose: the server decides whether an address exists; this only catches typos.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function emailError(email: string): 'emailRequired' | 'emailInvalid' | null {
  if (email.trim() === '') return 'emailRequired';
  return EMAIL.test(email.trim()) ? null : 'emailInvalid';
}

function BackToLogin() {
  const { t } = useTranslation();
  return (
    <Link to="/login" className="link-button" data-testid="back-to-login">
      <i className="pi pi-arrow-left" aria-hidden="true" /> {t('forgotPassword.backToLogin')}
    </Link>
  );
}

/** What the server said went wrong, or the generic text when it said nothing. */
function serverReason(err: unknown): string {
  return err instanceof Error && err.message && err.message !== GENERIC_ERROR ? err.message : i18n.t('errors.generic');
}

export default function ForgotPasswordScreen() {
  const { t } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const [step, setStep] = useState<'email' | 'reset'>('email');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [touched, setTouched] = useState(false);
  const [busy, setBusy] = useState(false);

  const emailProblem = emailError(email);
  const codeProblem = code.trim() === '' ? 'codeRequired' : null;
  // The server's own rules, shown before the user types: nothing is sent that it would refuse.
  const passwordProblem =
    newPassword === '' ? 'forgotPassword.newPasswordRequired' : isValidUserPassword(newPassword) ? null : 'users.form.errors.passwordRules';

  async function sendCode(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (emailProblem || busy) return;
    setBusy(true);
    try {
      await authApi.forgotPassword(email.trim());
      toast.info(t('forgotPassword.codeSentDetail'), t('forgotPassword.codeSentTitle'));
      setTouched(false);
      setStep('reset');
    } catch (err) {
      toast.error(serverReason(err), t('forgotPassword.sendFailed'));
    } finally {
      setBusy(false);
    }
  }

  async function resetPassword(event: FormEvent) {
    event.preventDefault();
    setTouched(true);
    if (codeProblem || passwordProblem || busy) return;
    setBusy(true);
    try {
      await authApi.resetPassword(email.trim(), code.trim(), newPassword);
      toast.success(t('forgotPassword.resetDone'));
      navigate('/login', { replace: true });
    } catch (err) {
      // The server's reason (a wrong or expired code, a rule the password breaks), in the reader's language.
      toast.error(serverReason(err), t('forgotPassword.resetFailed'));
    } finally {
      setBusy(false);
    }
  }

  if (step === 'email') {
    return (
      <AuthLayout title={t('forgotPassword.title')} subtitle={t('forgotPassword.introEmail')}>
        <form className="form" onSubmit={sendCode} noValidate data-testid="forgot-email-form">
          <div className="field">
            <label htmlFor="email">{t('forgotPassword.email')}</label>
            <InputText
              id="email"
              type="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              autoComplete="email"
              autoFocus
              invalid={touched && !!emailProblem}
              aria-describedby="email-error"
            />
            {touched && emailProblem && (
              <small id="email-error" className="field__error">
                {t(`forgotPassword.${emailProblem}`)}
              </small>
            )}
          </div>
          <Button type="submit" label={t('forgotPassword.sendCode')} loading={busy} className="w-full" />
          <BackToLogin />
        </form>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title={t('forgotPassword.title')} subtitle={t('forgotPassword.introCode', { email: email.trim() })}>
      <form className="form" onSubmit={resetPassword} noValidate data-testid="forgot-reset-form">
        <div className="field">
          <label htmlFor="code">{t('forgotPassword.code')}</label>
          <InputText
            id="code"
            value={code}
            onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, 6))}
            placeholder={t('forgotPassword.codePlaceholder')}
            inputMode="numeric"
            autoComplete="one-time-code"
            autoFocus
            invalid={touched && !!codeProblem}
          />
          {touched && codeProblem && <small className="field__error">{t(`forgotPassword.${codeProblem}`)}</small>}
        </div>
        <div className="field">
          <label htmlFor="new-password">{t('forgotPassword.newPassword')}</label>
          <InputText
            id="new-password"
            type="password"
            value={newPassword}
            onChange={(e) => setNewPassword(e.target.value)}
            autoComplete="new-password"
            invalid={touched && !!passwordProblem}
          />
          {touched && passwordProblem && (
            <small className="field__error" data-testid="new-password-error">
              {t(passwordProblem)}
            </small>
          )}
          <PasswordRulesPanel password={newPassword} id="reset-password-panel" />
        </div>
        <Button type="submit" label={t('forgotPassword.resetPassword')} loading={busy} className="w-full" />
        <BackToLogin />
      </form>
    </AuthLayout>
  );
}
