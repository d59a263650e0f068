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

/** Manual adjustments are highlighted; with onDelete they get a delete button. */
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
  return (
    <table className="task-subtable">
      <thead>
        <tr>
          {columns.map((k) => (
            <th key={k} className={k === 'amount' ? 'num' : undefined}>
              {t(`tasks.editor.transaction.${k}`)}
            </th>
          ))}
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
