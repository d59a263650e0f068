/** A task's history from the audit log: who changed what, newest first, with before and after. */
import { useTranslation } from 'react-i18next';
import { useCurrentUser } from '../../auth/useSession';
import { formatValue } from '../../engine/fields';
import type { ColumnMeta } from '../../engine/types';
import type { HistoryEntry } from './api';

const HISTORY_KEYS: Record<string, string> = {
  'task.create': 'create',
  'task.update': 'update',
  'task.field': 'field',
  'task.links': 'links',
  'task.adjust': 'adjust',
  'task.adjust.delete': 'adjustDelete',
};

const AT_COLUMN: ColumnMeta = { field: 'at', type: 'datetime', label: '', sortable: false, ops: [] };

const show = (v: unknown) => (v === null || v === undefined || v === '' ? '–' : Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v));

/** The fields that differ between before and after, as "field: old → new". */
export function changes(before: unknown, after: unknown): string[] {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const out: string[] = [];
  for (const key of [...new Set([...Object.keys(b), ...Object.keys(a)])]) {
    if (JSON.stringify(b[key]) !== JSON.stringify(a[key])) out.push(`${key}: ${show(b[key])} → ${show(a[key])}`);
  }
  return out;
}

export function HistoryList({ entries }: { entries: HistoryEntry[] }) {
  const { t, i18n } = useTranslation();
  const user = useCurrentUser();
  const ctx = { locale: i18n.language || 'en', dateFormat: user?.dateFormat };
  return (
    <details className="task-history" data-testid="task-history">
      <summary>
        {t('tasks.editor.history')} ({entries.length})
      </summary>
      {entries.length === 0 ? (
        <p>{t('tasks.editor.noHistory')}</p>
      ) : (
        <ul>
          {entries.map((e, i) => (
            <li key={`${e.at}-${i}`} data-testid="task-history-entry">
              <span className="task-history__when">{formatValue(e.at, AT_COLUMN, ctx)}</span> <strong>{e.actor}</strong>{' '}
              {t(`tasks.history.${HISTORY_KEYS[e.action] ?? 'update'}`)}
              {changes(e.before, e.after).length > 0 && <span className="task-history__diff"> — {changes(e.before, e.after).join('; ')}</span>}
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
