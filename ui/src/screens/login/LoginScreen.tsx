import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { useTranslation } from 'react-i18next';
import { InputText } from 'primereact/inputtext';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { authApi, isTwoFactorChallenge, type LoginResult, type TwoFactorChallenge } from '../../api/auth';
import { getToken, saveSession } from '../../auth/session';
import { isTokenValid } from '../../auth/jwt';
import { safeReturnUrl } from '../../auth/redirect';
import { isSupportedLanguage } from '../../i18n';
import { useToast } from '../../shell/toast';
import { AuthLayout } from '../AuthLayout';

function errorText(error: unknown, fallback: string): string {
  return error instanceof Error && error.message ? error.message : fallback;
}

export default function LoginScreen() {
  const { t, i18n } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  // Without a return address, the first screen the user's roles grant (Home for most).
  const returnUrl = safeReturnUrl(params.get('returnUrl'));

  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [showPassword, setShowPassword] = useState(false);
  const [challenge, setChallenge] = useState<TwoFactorChallenge | null>(null);
  const [code, setCode] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);

  // Someone already signed in who lands here (bookmark, back button) goes straight on.
  if (isTokenValid(getToken()) && !submitting) return <Navigate to={returnUrl ?? '/dashboard'} replace />;

  async function finish(result: LoginResult) {
    if (isTwoFactorChallenge(result)) {
      setChallenge(result);
      setCode('');
      return;
    }
    saveSession({ token: result.token, user: result.user, screenIds: result.screenIds, roles: result.roles });
    toast.clear();
    if (isSupportedLanguage(result.user.languageCode)) await i18n.changeLanguage(result.user.languageCode);
    navigate(returnUrl ?? '/dashboard', { replace: true }); // the dashboard's start: the first screen granted
  }

  async function run(call: () => Promise<LoginResult>) {
    setSubmitting(true);
    setError(null);
    try {
      const result = await call();
      await finish(result);
      // Signed in: the route is changing. Leaving `submitting` set keeps this
      // screen from rendering its "already signed in" redirect a second time,
      // which could undo a navigation that happens right after.
      if (!isTwoFactorChallenge(result)) return;
    } catch (err) {
      const message = errorText(err, t('errors.generic'));
      setError(message);
      toast.error(message, t('login.failed'));
    }
    setSubmitting(false);
  }

  const canSignIn = username.trim() !== '' && password !== '' && !submitting;
  const codeValid = /^\d{6}$/.test(code);

  function onSignIn(event: FormEvent) {
    event.preventDefault();
    if (!canSignIn) return;
    void run(() => authApi.login(username.trim(), password));
  }

  function onVerify(event: FormEvent) {
    event.preventDefault();
    if (!challenge || !codeValid || submitting) return;
    void run(() => authApi.verify(challenge.challengeId, code));
  }

  if (challenge) {
    return (
      <AuthLayout
        title={t('login.twoFactor.title')}
        subtitle={challenge.channel === 'mobile' ? t('login.twoFactor.promptMobile') : t('login.twoFactor.promptEmail')}
      >
        <form className="form" onSubmit={onVerify} noValidate data-testid="two-factor-form">
          <div className="field">
            <label htmlFor="otp">{t('login.twoFactor.code')}</label>
            <InputText
              id="otp"
              value={code}
              onChange={(e) => setCode(e.target.value.replace(/\D/g, '').slice(0, 6))}
              inputMode="numeric"
              autoComplete="one-time-code"
              maxLength={6}
              autoFocus
              className="otp-input"
              placeholder="000000"
            />
          </div>
          {error && <Message severity="error" text={error} className="form__error" data-testid="login-error" />}
          <Button type="submit" label={t('login.twoFactor.verify')} disabled={!codeValid || submitting} loading={submitting} className="w-full" />
          <button
            type="button"
            className="link-button"
            onClick={() => {
              setChallenge(null);
              setError(null);
            }}
          >
            <i className="pi pi-arrow-left" aria-hidden="true" /> {t('login.twoFactor.backToSignIn')}
          </button>
        </form>
      </AuthLayout>
    );
  }

  return (
    <AuthLayout title={t('login.title')} subtitle={t('login.subtitle')}>
      <form className="form" onSubmit={onSignIn} noValidate data-testid="login-form">
        <div className="field">
          <label htmlFor="username">{t('login.username')}</label>
          <InputText
            id="username"
            name="username"
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            autoComplete="username"
            autoFocus
          />
        </div>
        <div className="field">
          <label htmlFor="password">{t('login.password')}</label>
          <div className="p-inputgroup">
            <InputText
              id="password"
              name="password"
              type={showPassword ? 'text' : 'password'}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              autoComplete="current-password"
            />
            <Button
              type="button"
              icon={showPassword ? 'pi pi-eye-slash' : 'pi pi-eye'}
              severity="secondary"
              outlined
              aria-label={showPassword ? t('login.hidePassword') : t('login.showPassword')}
              aria-pressed={showPassword}
              title={showPassword ? t('login.hidePassword') : t('login.showPassword')}
              onClick={() => setShowPassword((shown) => !shown)}
              data-testid="toggle-password"
            />
          </div>
        </div>
        {error && <Message severity="error" text={error} className="form__error" data-testid="login-error" />}
        <Button type="submit" label={t('login.submit')} disabled={!canSignIn} loading={submitting} className="w-full" data-testid="sign-in" />
        <Link to="/forgot-password" className="link-button">
          {t('login.forgotPassword')}
        </Link>
      </form>
    </AuthLayout>
  );
}
