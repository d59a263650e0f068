/**
 * The note a report shows when the days it covers lie in closed months: each closing with its
 * level, who closed it and when ("10-2026 closed (all levels) by maria on 27-11-2026"), in the
 * user's date format. Nothing when no closing overlaps.
 */
import { useTranslation } from 'react-i18next';
import { Message } from 'primereact/message';
import { useCurrentUser } from '../auth/useSession';
import { formatDateOnly, formatMonth, monthPattern } from '../lib/dates';
import type { ClosedPeriod } from '../api/periods';

export function ClosedPeriodsNote({ periods }: { periods: readonly ClosedPeriod[] }) {
  const { t } = useTranslation();
  const user = useCurrentUser();
  if (periods.length === 0) return null;
  const format = user?.dateFormat;
  const texts = periods.map((p) =>
    t('periods.note', {
      month: formatMonth(p.month, monthPattern(format)),
      level: p.level ? t(`recon.levels.${p.level}`, { defaultValue: p.level }) : t('periods.allLevels'),
      by: p.closedBy,
      on: formatDateOnly(new Date(p.closedOn), format),
    }),
  );
  return (
    <Message
      severity="info"
      icon="pi pi-lock"
      role="status"
      aria-label={t('periods.title')}
      className="closed-periods"
      text={texts.join(' · ')}
      data-testid="closed-periods"
    />
  );
}
