/** A task's history from the audit log: who changed what, newest first, with before and after. */
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { useCurrentUser } from '../../auth/useSession';
import { formatValue, type FormatContext } from '../../engine/fields';
import { formatDecimal } from '../../lib/decimal';
import type { ColumnMeta } from '../../engine/types';
import type { HistoryEntry } from './api';

const HISTORY_KEYS: Record<string, string> = {
  'task.create': 'create',
  'task.update': 'update',
  'task.field': 'field',
  'task.links': 'links',
  'task.adjust': 'adjust',
  'task.adjust.delete': 'adjustDelete',
  'task.escalate': 'escalate',
};

const AT_COLUMN: ColumnMeta = { field: 'at', type: 'datetime', label: '', sortable: false, ops: [] };
const DATE_COLUMN: ColumnMeta = { field: 'date', type: 'date', label: '', sortable: false, ops: [] };

/**
 * The fields of the audit entries (a task's own fields, its links, an adjustment's) in the order
 * they are listed; a field the server adds later comes after them, under its own name.
 */
const FIELD_ORDER = [
  'taskName', 'isStatus', 'assignedToId', 'priority', 'ticketIds', 'transactionIds',
  'clientUniqueId', 'date', 'amount', 'currency', 'transactionType', 'paymentMethod', 'acquiringBank', 'remarks', 'reason',
];
/** Said by the entry itself: an adjustment is always manual, made by the entry's actor, and known by its ticket number. */
const UNSAID = new Set(['isManualAdjust', 'createdBy', 'transactionId']);
/** What the server gives every adjustment made in this screen (adjust.go): listing it says nothing. */
const ADJUSTMENT_DEFAULTS: Record<string, unknown> = { paymentMethod: 'Manual', transactionType: 'Adjustment' };

const NONE = '–';

/** How the values are shown: in the reader's language, number and date format. */
export interface HistoryFormat extends FormatContext {
  t: TFunction;
  /** The name of a user id (the assignee), when the caller knows it. */
  userName?: (id: number) => string | undefined;
}

/** One value as the reader reads it: a status by its name, an amount and a date their way. */
export function historyValue(key: string, value: unknown, f: HistoryFormat): string {
  if (value === null || value === undefined || value === '') return NONE;
  if (key === 'isStatus') return f.t(`tasks.status.${String(value)}`, { defaultValue: String(value) });
  if (key === 'assignedToId' && typeof value === 'number') return f.userName?.(value) ?? String(value);
  if (key === 'amount') return formatDecimal(value, 2, f.locale);
  if (key === 'date') return formatValue(value, DATE_COLUMN, f);
  if (typeof value === 'boolean') return f.t(value ? 'common.yes' : 'common.no');
  if (Array.isArray(value)) return value.length === 0 ? NONE : value.join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function order(a: string, b: string): number {
  const rank = (k: string) => (FIELD_ORDER.includes(k) ? FIELD_ORDER.indexOf(k) : FIELD_ORDER.length);
  return rank(a) - rank(b);
}

/**
 * What an entry changed, as "Field: old → new" with translated field names. A creation or an
 * added adjustment (nothing before) lists the values it was made with, a deletion (nothing
 * after) the values it had.
 */
export function changes(before: unknown, after: unknown, f: HistoryFormat): string[] {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const label = (key: string) => f.t(`tasks.history.fields.${key}`, { defaultValue: key });
  const out: string[] = [];
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])].filter((k) => !UNSAID.has(k)).sort(order);
  for (const key of keys) {
    if (before === null || before === undefined || after === null || after === undefined) {
      const value = before == null ? a[key] : b[key];
      const shown = historyValue(key, value, f);
      if (shown !== NONE && ADJUSTMENT_DEFAULTS[key] !== value) out.push(`${label(key)}: ${shown}`);
    } else if (JSON.stringify(b[key]) !== JSON.stringify(a[key])) {
      out.push(`${label(key)}: ${historyValue(key, b[key], f)} → ${historyValue(key, a[key], f)}`);
    }
  }
  return out;
}

export function HistoryList({ entries, userName }: { entries: HistoryEntry[]; userName?: (id: number) => string | undefined }) {
  const { t, i18n } = useTranslation();
  const user = useCurrentUser();
  const f: HistoryFormat = { t, locale: i18n.language || 'en', dateFormat: user?.dateFormat, userName };
  return (
    <details className="task-history" data-testid="task-history">
      <summary>
        {t('tasks.editor.history')} ({entries.length})
      </summary>
      {entries.length === 0 ? (
        <p>{t('tasks.editor.noHistory')}</p>
      ) : (
        <ul>
          {entries.map((e, i) => {
            const diff = changes(e.before, e.after, f);
            return (
              <li key={`${e.at}-${i}`} data-testid="task-history-entry">
                <span className="task-history__when">{formatValue(e.at, AT_COLUMN, f)}</span> <strong>{e.actor}</strong>{' '}
                {t(`tasks.history.${HISTORY_KEYS[e.action] ?? 'update'}`)}
                {diff.length > 0 && <span className="task-history__diff"> — {diff.join('; ')}</span>}
              </li>
            );
          })}
        </ul>
      )}
    </details>
  );
}
