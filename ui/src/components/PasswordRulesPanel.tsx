import { useTranslation } from 'react-i18next';
import { checkUserPassword, PASSWORD_RULES, passwordRules, userPasswordStrength } from '../auth/userPassword';
import { PasswordStrengthMeter } from './PasswordStrengthMeter';

/** The password panel of the user form and the reset screen: a tick per rule of spec 01 §5, then the meter. */
export function PasswordRulesPanel({ password, id }: { password: string; id?: string }) {
  const { t } = useTranslation();
  const checks = checkUserPassword(password);
  const { minLength, maxLength, specials } = passwordRules();
  const ruleParams = { min: minLength, max: maxLength, specials: [...specials].join(' ') };
  return (
    <div className="password-panel" id={id} data-testid="password-panel">
      <ul className="password-rules" aria-label={t('users.form.passwordRules.title')}>
        {PASSWORD_RULES.map((rule) => (
          <li
            key={rule}
            className={checks[rule] ? 'password-rules__item is-met' : 'password-rules__item'}
            data-testid={`password-rule-${rule}`}
            data-met={checks[rule]}
          >
            <i className={`pi ${checks[rule] ? 'pi-check-circle' : 'pi-circle'}`} aria-hidden="true" />
            <span>{t(`users.form.passwordRules.${rule}`, ruleParams)}</span>
            <span className="sr-only">{checks[rule] ? t('users.form.passwordRules.met') : t('users.form.passwordRules.notMet')}</span>
          </li>
        ))}
      </ul>
      <PasswordStrengthMeter password={password} strength={userPasswordStrength(password)} />
    </div>
  );
}
