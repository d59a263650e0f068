/** The sub-tables of a task's tickets and transactions: in the row expander and in the editor. */
import { useTranslation } from 'react-i18next';
import { useCurrentUser } from '../../auth/useSession';
import { formatValue } from '../../engine/fields';
import type { ColumnMeta } from '../../engine/types';
import { formatDecimal } from '../../lib/decimal';
import type { TaskTicket, TaskTransaction } from './api';

type TicketKey = 'ticketNumber' | 'transDate' | 'paymentType' | 'countryCode' | 'currency' | 'transactionCode' | 'amount';
type TransactionKey = 'clientUniqueId' | 'date' | 'acquiringBank' | 'paymentMethod' | 'currency' | 'transactionType' | 'amount';

const ticketValue = (k: TaskTicket, key: TicketKey): string =>
  key === 'currency' ? k.localFareCurrency : key === 'amount' ? k.totalFareIncludesFee : k[key];

const DATE: ColumnMeta = { field: 'date', type: 'date', label: '', sortable: false, ops: [] };

/** A cell's text: amounts with the language's separators, dates in the user's date format. */
function useCellText() {
  const { i18n } = useTranslation();
  const user = useCurrentUser();
  const ctx = { locale: i18n.language || 'en', dateFormat: user?.dateFormat };
  return (key: string, value: string) => (key === 'amount' ? formatDecimal(value, 2, ctx.locale) : key === 'transDate' || key === 'date' ? formatValue(value, DATE, ctx) : value);
}

export function TicketTable({ tickets, columns }: { tickets: TaskTicket[]; columns: TicketKey[] }) {
  const { t } = useTranslation();
  const text = useCellText();
  return (
    <table className="task-subtable">
      <thead>
        <tr>
          {columns.map((k) => (
            <th key={k} className={k === 'amount' ? 'num' : undefined}>
              {t(`tasks.editor.ticket.${k}`)}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {tickets.map((k) => (
          <tr key={k.ticketId}>
            {columns.map((c) => (
              <td key={c} className={c === 'amount' ? 'num' : undefined}>
                {text(c, ticketValue(k, c))}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * A transaction's reconciliation state at the tickets-vs-transactions level: its match's status
 * and rule ("Matched · by adjustment"), or Open. A row without the fields (an older server) is open.
 */
export function useMatchStateText() {
  const { t } = useTranslation();
  return (x: Pick<TaskTransaction, 'matchId' | 'matchStatus' | 'matchRule'>): { text: string; open: boolean } => {
    if (x.matchId === null || x.matchId === undefined) return { text: t('tasks.editor.matchOpen'), open: true };
    const status = x.matchStatus ? t(`recon.status.${x.matchStatus}`, { defaultValue: x.matchStatus }) : t('recon.status.matched');
    if (!x.matchRule) return { text: status, open: false };
    const rule = t(`recon.chain.rules.${x.matchRule}`, { defaultValue: x.matchRule });
    return { text: t('tasks.editor.matchState', { status, rule }), open: false };
  };
}

/** Manual adjustments are highlighted; with onDelete they get a delete button. Each row tells its match state. */
export function TransactionTable({
  transactions,
  columns,
  onDelete,
}: {
  transactions: TaskTransaction[];
  columns: TransactionKey[];
  onDelete?: (x: TaskTransaction) => void;
}) {
  const { t } = useTranslation();
  const text = useCellText();
  const matchState = useMatchStateText();
  return (
    <table className="task-subtable">
      <thead>
        <tr>
          {columns.map((k) => (
            <th key={k} className={k === 'amount' ? 'num' : undefined}>
              {t(`tasks.editor.transaction.${k}`)}
            </th>
          ))}
          <th className="task-subtable__state">{t('tasks.editor.transaction.matchState')}</th>
          {onDelete && <th aria-label={t('tasks.editor.deleteAdjustment')} />}
        </tr>
      </thead>
      <tbody>
        {transactions.map((x) => (
          <tr key={x.transactionId} className={x.isManualAdjust ? 'task-adjustment' : undefined} data-testid={x.isManualAdjust ? 'task-adjustment' : undefined}>
            {columns.map((c, i) => (
              <td key={c} className={c === 'amount' ? 'num' : undefined} title={i === 0 && x.isManualAdjust ? t('tasks.editor.adjustment') : undefined}>
                {i === 0 && x.isManualAdjust && <i className="pi pi-pencil task-adjustment__icon" aria-label={t('tasks.editor.adjustment')} />}{' '}
                {text(c, x[c])}
              </td>
            ))}
            <MatchStateCell state={matchState(x)} testId={`match-state-${x.transactionId}`} />
            {onDelete && (
              <td>
                {x.isManualAdjust && (
                  <button
                    type="button"
                    className="grid-icon-button grid-icon-button--danger"
                    title={t('tasks.editor.deleteAdjustment')}
                    aria-label={t('tasks.editor.deleteAdjustment')}
                    onClick={() => onDelete(x)}
                    data-testid={`delete-adjustment-${x.transactionId}`}
                  >
                    <i className="pi pi-trash" aria-hidden="true" />
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function MatchStateCell({ state, testId }: { state: { text: string; open: boolean }; testId: string }) {
  return (
    <td className={state.open ? 'task-subtable__state task-subtable__state--open' : 'task-subtable__state'} data-testid={testId}>
      {state.text}
    </td>
  );
}
