/**
 * The task editor's linked tickets and transactions, found by ticket number (first finance user,
 * item 7: people know documents by their references, not by the database's ids).
 *
 * The ids texts stay the source of truth (what is sent is still {ticketIds, transactionIds}); this
 * part finds documents by a 13-digit ticket number (GET /TaskTT/candidates), ticks them into the
 * ids, and shows the chosen ones as chips labelled by their reference. References come from the
 * task's relations, from the finds, or from the caller; an id without one shows as "Ticket id 611".
 * The ids fields stay behind a small toggle: the way in for a user whose lookup is refused (403).
 */
import { useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { InputText } from 'primereact/inputtext';
import { ApiError } from '../../api/client';
import { useCurrentUser } from '../../auth/useSession';
import { formatValue } from '../../engine/fields';
import type { ColumnMeta } from '../../engine/types';
import { formatDecimal } from '../../lib/decimal';
import { tasksApi, type TaskTicket, type TaskTransaction } from './api';
import { useErrorText } from './errorText';

type IdsKey = 'ticketIds' | 'transactionIds';

export interface DocumentLinksProps {
  ticketIds: string;
  transactionIds: string;
  onChange(key: IdsKey, value: string): void;
  /** Documents whose references are known already (the task's relations, the caller's). */
  known: { tickets: readonly TaskTicket[]; transactions: readonly TaskTransaction[] };
  /** Whether the session may link documents (the Reconcile screen); without it all is read-only. */
  canLink: boolean;
  /** The ids fields' errors (validation or the server's), shown under them. */
  errors: Partial<Record<IdsKey, ReactNode>>;
}

/** The digit-only ids of a comma-separated text, skipping whatever else was typed. */
export function idsIn(text: string): number[] {
  const ids = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => /^\d+$/.test(p) && Number(p) !== 0)
    .map(Number);
  return [...new Set(ids)];
}

/** The text with `id` added (at the end) or removed; other parts stay as typed. */
export function withId(text: string, id: number, on: boolean): string {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const rest = parts.filter((p) => !(/^\d+$/.test(p) && Number(p) === id));
  return (on ? [...rest, String(id)] : rest).join(', ');
}

const TICKET_NUMBER = /^\d{13}$/;
const DATE: ColumnMeta = { field: 'date', type: 'date', label: '', sortable: false, ops: [] };

interface Found {
  number: string;
  tickets: TaskTicket[];
  transactions: TaskTransaction[];
}

export function DocumentLinks({ ticketIds, transactionIds, onChange, known, canLink, errors }: DocumentLinksProps) {
  const { t, i18n } = useTranslation();
  const user = useCurrentUser();
  const errorText = useErrorText();
  const locale = i18n.language || 'en';
  const [number, setNumber] = useState('');
  const [found, setFound] = useState<Found | null>(null);
  const [seen, setSeen] = useState<{ tickets: TaskTicket[]; transactions: TaskTransaction[] }>({ tickets: [], transactions: [] });
  const [finding, setFinding] = useState(false);
  const [findError, setFindError] = useState<string | null>(null);
  const [forbidden, setForbidden] = useState(false);
  const [idsOpen, setIdsOpen] = useState(false);
  const latest = useRef(0);

  const lookup = canLink && !forbidden;
  // An error in the ids keeps them in sight until it is mended.
  const idsErrors = !!errors.ticketIds || !!errors.transactionIds;
  const showIds = idsOpen || idsErrors;
  const date = (value: string) => formatValue(value, DATE, { locale, dateFormat: user?.dateFormat });
  const money = (value: string, currency: string) => `${formatDecimal(value, 2, locale)} ${currency}`;

  const tickets = useMemo(() => new Map([...known.tickets, ...seen.tickets].map((k) => [k.ticketId, k])), [known.tickets, seen.tickets]);
  const transactions = useMemo(
    () => new Map([...known.transactions, ...seen.transactions].map((x) => [x.transactionId, x])),
    [known.transactions, seen.transactions],
  );
  const chosenTickets = idsIn(ticketIds);
  const chosenTransactions = idsIn(transactionIds);

  const find = async () => {
    const n = number.replace(/[\s-]/g, '');
    if (!TICKET_NUMBER.test(n)) {
      setFound(null);
      setFindError(n === '' ? t('tasks.editor.links.numberRequired') : t('tasks.editor.links.badNumber', { value: number.trim() }));
      return;
    }
    const call = ++latest.current;
    setFinding(true);
    setFindError(null);
    try {
      const r = await tasksApi.candidates(n);
      if (call !== latest.current) return;
      // Manual adjustments belong to their task: they are made in the adjustment dialog, not linked.
      const result = { number: n, tickets: r?.tickets ?? [], transactions: (r?.transactions ?? []).filter((x) => !x.isManualAdjust) };
      if (result.tickets.length + result.transactions.length === 0) {
        setFound(null);
        setFindError(t('tasks.editor.links.notFound', { number: n }));
        return;
      }
      setFound(result);
      setSeen((s) => ({ tickets: [...s.tickets, ...result.tickets], transactions: [...s.transactions, ...result.transactions] }));
    } catch (err) {
      if (call !== latest.current) return;
      setFound(null);
      if (err instanceof ApiError && err.status === 403) setForbidden(true);
      else setFindError(errorText(err, 'tasks.editor.links.findFailed'));
    } finally {
      if (call === latest.current) setFinding(false);
    }
  };

  const ticketTitle = (k: TaskTicket) =>
    [t('tasks.editor.links.ticket'), k.ticketNumber, date(k.transDate), money(k.totalFareIncludesFee, k.localFareCurrency), t('tasks.editor.links.internalId', { id: k.ticketId })].join(' · ');
  const transactionRef = (x: TaskTransaction) => [x.clientUniqueId || t('tasks.editor.links.noReference'), x.acquiringBank].filter(Boolean).join(' · ');
  const transactionTitle = (x: TaskTransaction) =>
    [t('tasks.editor.links.transaction'), transactionRef(x), date(x.date), money(x.amount, x.currency), t('tasks.editor.links.internalId', { id: x.transactionId })].join(' · ');

  const chip = (kind: 'ticket' | 'transaction', id: number, label: string, title: string) => (
    <li key={id} className="task-chip" title={title} data-testid={`task-chip-${kind}-${id}`}>
      <i className={kind === 'ticket' ? 'pi pi-ticket' : 'pi pi-credit-card'} aria-hidden="true" />
      <span className="task-chip__text">
        <span className="task-chip__ref">{label}</span>
        <small className="task-chip__id">{t('tasks.editor.links.internalId', { id })}</small>
      </span>
      {canLink && (
        <button
          type="button"
          className="task-chip__remove"
          aria-label={t('tasks.editor.links.remove', { label })}
          title={t('tasks.editor.links.remove', { label })}
          onClick={() => onChange(kind === 'ticket' ? 'ticketIds' : 'transactionIds', withId(kind === 'ticket' ? ticketIds : transactionIds, id, false))}
          data-testid={`task-chip-remove-${kind}-${id}`}
        >
          <i className="pi pi-times" aria-hidden="true" />
        </button>
      )}
    </li>
  );

  const idsField = (key: IdsKey, value: string) => (
    <label className="task-field">
      <span>{t(`tasks.editor.${key}`)}</span>
      <InputText
        value={value}
        onChange={(e) => onChange(key, e.target.value)}
        placeholder={t('tasks.editor.idsHint')}
        inputMode="numeric"
        invalid={!!errors[key]}
        disabled={!canLink}
        title={canLink ? undefined : t('tasks.editor.linkNeedsReconcile')}
        data-testid={key === 'ticketIds' ? 'task-ticket-ids' : 'task-transaction-ids'}
      />
      {errors[key]}
    </label>
  );

  return (
    <section className="task-links task-field--wide" data-testid="task-links">
      <span className="task-links__title">{t('tasks.editor.links.title')}</span>
      <div className="task-links__chosen">
        <div className="task-links__group" data-testid="task-chips-tickets">
          <span className="task-links__label">{t('tasks.editor.tickets', { count: chosenTickets.length })}</span>
          <ul className="task-chips">
            {chosenTickets.map((id) => {
              const k = tickets.get(id);
              return k ? chip('ticket', id, k.ticketNumber, ticketTitle(k)) : chip('ticket', id, t('tasks.editor.links.unknownTicket', { id }), t('tasks.editor.links.unknownTicket', { id }));
            })}
          </ul>
        </div>
        <div className="task-links__group" data-testid="task-chips-transactions">
          <span className="task-links__label">{t('tasks.editor.transactions', { count: chosenTransactions.length })}</span>
          <ul className="task-chips">
            {chosenTransactions.map((id) => {
              const x = transactions.get(id);
              return x
                ? chip('transaction', id, transactionRef(x), transactionTitle(x))
                : chip('transaction', id, t('tasks.editor.links.unknownTransaction', { id }), t('tasks.editor.links.unknownTransaction', { id }));
            })}
          </ul>
        </div>
      </div>

      {lookup ? (
        <div className="task-links__find">
          <label htmlFor="task-link-number">{t('tasks.editor.links.ticketNumber')}</label>
          <div className="task-links__row">
            <InputText
              id="task-link-number"
              value={number}
              onChange={(e) => {
                setNumber(e.target.value);
                setFindError(null);
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter') {
                  e.preventDefault();
                  void find();
                }
              }}
              placeholder={t('tasks.editor.links.numberPlaceholder')}
              inputMode="numeric"
              autoComplete="off"
              invalid={!!findError}
              aria-describedby={findError ? 'task-link-error' : undefined}
              data-testid="task-link-number"
            />
            <Button type="button" icon="pi pi-search" label={t('tasks.editor.links.find')} outlined loading={finding} onClick={() => void find()} data-testid="task-link-find" />
          </div>
          {findError && (
            <small className="p-error" id="task-link-error" role="alert" data-testid="task-link-error">
              {findError}
            </small>
          )}
        </div>
      ) : (
        <p className="task-links__unavailable" data-testid="task-link-unavailable">
          <i className="pi pi-info-circle" aria-hidden="true" /> {canLink ? t('tasks.editor.links.lookupRefused') : t('tasks.editor.linkNeedsReconcile')}
        </p>
      )}

      {lookup && found && (
        <div className="task-links__results" data-testid="task-link-results">
          <span className="task-links__label">{t('tasks.editor.links.found', { number: found.number })}</span>
          <ul className="task-candidates">
            {found.tickets.map((k) => (
              <li key={`k${k.ticketId}`}>
                <label className="task-candidate" aria-label={ticketTitle(k)}>
                  <input
                    type="checkbox"
                    checked={chosenTickets.includes(k.ticketId)}
                    onChange={(e) => onChange('ticketIds', withId(ticketIds, k.ticketId, e.target.checked))}
                    data-testid={`task-link-ticket-${k.ticketId}`}
                  />
                  <i className="pi pi-ticket" aria-hidden="true" />
                  <span className="task-candidate__text">
                    <span className="task-candidate__ref">
                      <strong>{k.ticketNumber}</strong> · {date(k.transDate)} · <span className="num">{money(k.totalFareIncludesFee, k.localFareCurrency)}</span>
                    </span>
                    <small className="task-candidate__id">
                      {t('tasks.editor.links.ticket')} · {t('tasks.editor.links.internalId', { id: k.ticketId })}
                    </small>
                  </span>
                </label>
              </li>
            ))}
            {found.transactions.map((x) => (
              <li key={`x${x.transactionId}`}>
                <label className="task-candidate" aria-label={transactionTitle(x)}>
                  <input
                    type="checkbox"
                    checked={chosenTransactions.includes(x.transactionId)}
                    onChange={(e) => onChange('transactionIds', withId(transactionIds, x.transactionId, e.target.checked))}
                    data-testid={`task-link-transaction-${x.transactionId}`}
                  />
                  <i className="pi pi-credit-card" aria-hidden="true" />
                  <span className="task-candidate__text">
                    <span className="task-candidate__ref">
                      <strong>{x.clientUniqueId || t('tasks.editor.links.noReference')}</strong>
                      {x.acquiringBank ? ` · ${x.acquiringBank}` : ''} · {date(x.date)} · <span className="num">{money(x.amount, x.currency)}</span>
                    </span>
                    <small className="task-candidate__id">
                      {t('tasks.editor.links.transaction')} · {t('tasks.editor.links.internalId', { id: x.transactionId })}
                    </small>
                  </span>
                </label>
              </li>
            ))}
          </ul>
        </div>
      )}

      {!idsErrors && (
        <button type="button" className="link-button task-links__toggle" aria-expanded={showIds} onClick={() => setIdsOpen((o) => !o)} data-testid="task-ids-toggle">
          {showIds ? t('tasks.editor.links.hideIds') : canLink ? t('tasks.editor.links.enterIds') : t('tasks.editor.links.showIds')}
        </button>
      )}
      {showIds && (
        <div className="task-links__ids">
          {idsField('ticketIds', ticketIds)}
          {idsField('transactionIds', transactionIds)}
        </div>
      )}
    </section>
  );
}
