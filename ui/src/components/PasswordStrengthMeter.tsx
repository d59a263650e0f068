import { useTranslation } from 'react-i18next';
import { passwordStrength, strengthPercent, type PasswordStrength } from '../auth/passwordStrength';

/**
 * The meter bar and label. By default it rates with the profile/reset rule; the user form
 * passes its own `strength` (counted from its five rules).
 */
export function PasswordStrengthMeter({ password, strength: given }: { password: string; strength?: PasswordStrength }) {
  const { t } = useTranslation();
  const strength = given ?? passwordStrength(password);
  const percent = strengthPercent(strength);
  return (
    <div className={`strength strength--${strength}`} data-testid="password-strength" data-strength={strength}>
      <div
        className="strength__track"
        role="meter"
        aria-label={t('password.strength.label')}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <div className="strength__bar" style={{ width: `${percent}%` }} />
      </div>
      <small className="strength__text">
        {strength === 'empty' ? t('password.strength.prompt') : t(`password.strength.${strength}`)}
      </small>
    </div>
  );
}
