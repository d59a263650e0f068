/**
 * The records behind a report row (spec 03 sections 2.1 and 3.4), for a level that declares
 * `details`: the tickets vs transactions report opens the ticket and transaction details (the
 * tickets of the row's currency, date, payment type and country, and their transactions) with
 * Create Task; the transactions vs settlements report the transaction and settlement details.
 * Each record shows its match status, opens its chain, and a matched one can be undone.
 */
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Dialog } from 'primereact/dialog';
import { Button } from 'primereact/button';
import { Message } from 'primereact/message';
import { useToast } from '../../shell/toast';
import { useCurrentUser } from '../../auth/useSession';
import { formatDateOnly, fromIsoDate } from '../../lib/dates';
import type { Row } from '../../engine/types';
import type { TFunction } from 'i18next';
import { errorText, realIds, reconApi, WRITEOFF_RULE, type ChainRef, type LevelDef, type Match, type RecordColumn, type RecordKind } from './recon';
import { RecordGrid } from './RecordGrid';
import type { UndoTarget } from './UndoMatchDialog';
import type { TaskLinks } from './CreateTaskFromDetails';
import type { TaskTicket, TaskTransaction } from '../tasks/api';

const c = (field: string, type: RecordColumn['type'] = 'text', width?: number): RecordColumn => (width ? { field, type, width } : { field, type });
/** The report row's day as the details call takes it (yyyy-MM-dd); shown, it is in the user's format (detailContext). */
const isoDay = (v: unknown) => (typeof v === 'string' ? v.slice(0, 10) : '');

/** Narrow columns for three-letter codes; a payout id such as PO-NUVEI-20261031-USD whole. */
const CODE = 72;
const PAYOUT = 184;

/** The details of the rows of one report view: what the details call is asked, and how its answer shows. */
export interface DetailSpec {
  /** Translation key of the dialog's title. */
  title: string;
  /** The answer's item1 and item2 (spec 3.4's detail records). */
  sides: [{ kind: RecordKind; columns: RecordColumn[] }, { kind: RecordKind; columns: RecordColumn[] }];
  /** The details call's body from a report row (spec 3.4's lookup parameters). */
  request(row: Row): Record<string, unknown>;
  /** The row's values the title and the task's remarks show (dates as yyyy-MM-dd). */
  context(row: Row): unknown[];
  /** Create Task links the item1 records as tickets and the item2 records as transactions. */
  createTask: boolean;
}

/**
 * Per report view: the details call takes the grouping values of a row of that report, so what
 * a row can be asked about belongs to the view, not to a level's number.
 */
const DETAILS_BY_VIEW: Record<string, DetailSpec> = {
  VW_ReconTicketTransaction: {
    title: 'recon.details.ticketTransaction',
    sides: [
      // The reference, date, currency and amount first: both sides' amounts show without scrolling.
      { kind: 'ticket', columns: [c('TicketNumber'), c('TransactionDate', 'date'), c('Currency', 'text', CODE), c('TotalFareWithFees', 'decimal', 140), c('PaymentType', 'text', 100), c('CountryCode', 'text', CODE), c('TransactionCode'), c('id', 'int', 80)] },
      { kind: 'transaction', columns: [c('ClientUniqueID'), c('ProcessingDate', 'date', 120), c('currency', 'text', CODE), c('Amount', 'decimal'), c('AcquiringBank', 'text', 160), c('ProviderActor'), c('id', 'int', 80)] },
    ],
    request: (row) => ({ Currency: row.SalesCurrency ?? '', SelectDate: isoDay(row.TicketDate), PaymentType: row.PaymentType ?? '', CountryCode: row.CountryCode ?? '' }),
    context: (row) => [row.SalesCurrency, isoDay(row.TicketDate), row.PaymentType, row.CountryCode],
    createTask: true,
  },
  VW_ReconTransactionSettlement: {
    title: 'recon.details.transactionSettlement',
    sides: [
      { kind: 'transaction', columns: [c('TicketNumber'), c('TransactionDate', 'date'), c('Currency', 'text', CODE), c('Amount', 'decimal'), c('AcquiringBank', 'text', 160), c('PaymentMethod'), c('TransactionType'), c('id', 'int', 80)] },
      { kind: 'settlement', columns: [c('MovementDate', 'date'), c('Currency', 'text', CODE), c('Amount', 'decimal'), c('PayoutID', 'text', PAYOUT), c('ClientUniqueID'), c('AcquirerBank', 'text', 160), c('id', 'int', 80)] },
    ],
    request: (row) => ({ Currency: row.TransCurrency ?? '', SelectDate: isoDay(row.TransDate), ProviderActor: row.ProviderActor ?? '' }),
    context: (row) => [row.TransCurrency, isoDay(row.TransDate), row.ProviderActor],
    createTask: false,
  },
};

/** The details a row of the level opens: none where the level declares none or its report has no details. */
export function detailsOf(level: LevelDef): DetailSpec | null {
  return level.details ? (DETAILS_BY_VIEW[level.reportView] ?? null) : null;
}

/** What a details dialog shows about its row, for the title and the task's remarks (the date in the user's format). */
export function detailContext(spec: DetailSpec, row: Row, dateFormat?: string | null): string {
  const shown = (v: unknown) => {
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
    const d = fromIsoDate(v);
    return d ? formatDateOnly(d, dateFormat) : v;
  };
  return spec
    .context(row)
    .map(shown)
    .filter((p) => p !== null && p !== undefined && p !== '')
    .join(' · ');
}

/** The details' records by side, as the details call answers them. */
export interface DetailRecords {
  item1: Row[];
  item2: Row[];
}

/** The members named in a group's undo question: the first few, then an ellipsis (as the chain panel does). */
const MEMBERS_NAMED = 4;

/** How a record is named to people: its ticket number, client id or payout id, else its id. */
const nameOf = (record: Row | undefined, id: number) => String(record?.TicketNumber ?? record?.ClientUniqueID ?? record?.PayoutID ?? `#${id}`);

/**
 * What undoing the match of a record of the details takes back: the record alone, or a group
 * with its counts per side and its first members. The group's records come from the match
 * (its leftIds and rightIds) when the server gave it, else from the details' records that
 * carry the same MatchId (those of the group the details show).
 */
export function detailUndoTarget(level: LevelDef, spec: DetailSpec, kind: RecordKind, record: Row, data: DetailRecords | null, match: Match | null, t: TFunction): UndoTarget {
  const matchId = Number(record.MatchId);
  const single: UndoTarget = { slug: level.slug, matchId, what: `${t(`recon.kinds.${kind}`)} ${nameOf(record, Number(record.id))}` };
  // The details' sides as the level's sides: item1 is the left one when its kind is the level's left kind.
  const leftFirst = spec.sides[0].kind === level.left.kind;
  const [leftRows, rightRows] = leftFirst ? [data?.item1 ?? [], data?.item2 ?? []] : [data?.item2 ?? [], data?.item1 ?? []];
  const idsOf = (rows: Row[]) => rows.filter((r) => Number(r.MatchId) === matchId).map((r) => Number(r.id));
  const ours = match && match.id === matchId ? match : null;
  // A write-off has records on one side only: its other list is empty (its other id 0).
  const writeoff = ours?.rule === WRITEOFF_RULE;
  const fromServer = ours && (writeoff ? realIds(ours.leftIds).length > 0 || realIds(ours.rightIds).length > 0 : ours.leftIds?.length && ours.rightIds?.length);
  const leftIds = fromServer ? realIds(ours.leftIds) : idsOf(leftRows);
  const rightIds = fromServer ? realIds(ours.rightIds) : idsOf(rightRows);
  if (leftIds.length <= 1 && rightIds.length <= 1) return writeoff ? { ...single, writeoff: true } : single;
  const members = [
    ...leftIds.map((id) => nameOf(leftRows.find((r) => Number(r.id) === id), id)),
    ...rightIds.map((id) => nameOf(rightRows.find((r) => Number(r.id) === id), id)),
  ];
  const count = (side: LevelDef['left'], n: number) => ({ kind: side.kind, label: side.label, count: n });
  return {
    slug: level.slug,
    matchId,
    what: `${members.slice(0, MEMBERS_NAMED).join(', ')}${members.length > MEMBERS_NAMED ? ', …' : ''}`,
    group: { left: count(level.left, leftIds.length), right: count(level.right, rightIds.length) },
    ...(writeoff ? { writeoff: true } : {}),
  };
}

const text = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/** A ticket of the tickets-vs-transactions details as the task editor shows it (by its number). */
function taskTicket(r: Row): TaskTicket {
  return {
    ticketId: Number(r.id), ticketNumber: text(r.TicketNumber), transDate: text(r.TransactionDate), paymentType: text(r.PaymentType),
    countryCode: text(r.CountryCode), localFareCurrency: text(r.Currency), transactionCode: text(r.TransactionCode), totalFareIncludesFee: text(r.TotalFareWithFees),
  };
}

/** A transaction of the same details as the task editor shows it (by its client id and bank). */
function taskTransaction(r: Row): TaskTransaction {
  return {
    transactionId: Number(r.id), clientUniqueId: text(r.ClientUniqueID), date: text(r.ProcessingDate), acquiringBank: text(r.AcquiringBank),
    paymentMethod: '', currency: text(r.currency), transactionType: '', amount: text(r.Amount), isManualAdjust: r.IsManualAdjust === true,
    remarks: '', createdBy: '',
  };
}

export function DetailsDialog({
  level,
  row,
  onClose,
  onChain,
  onUndo,
  onCreateTask,
  reloadToken,
}: {
  level: LevelDef;
  row: Row | null;
  onClose(): void;
  onChain(start: ChainRef): void;
  onUndo(target: UndoTarget): void;
  onCreateTask(links: TaskLinks): void;
  /** Changes after an undo: the records are read again. */
  reloadToken: number;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const user = useCurrentUser();
  const [data, setData] = useState<{ item1: Row[]; item2: Row[] } | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const spec = detailsOf(level);
  const sides = spec?.sides ?? [];

  useEffect(() => {
    if (!row || !spec) return undefined;
    let alive = true;
    setFailure(null);
    reconApi.details(level.slug, spec.request(row)).then(
      (answer) => alive && setData(answer),
      (err: unknown) => {
        if (!alive) return;
        const text = errorText(err, t, 'recon.toasts.detailsFailed');
        setFailure(text);
        setData(null);
        toast.error(text, t('recon.toasts.detailsFailed'));
      },
    );
    return () => {
      alive = false;
    };
  }, [row, level.slug, spec, reloadToken, t, toast]);

  useEffect(() => {
    if (!row) setData(null);
  }, [row]);

  /** Asks the match for its whole group (the question counts its records), then opens the undo. */
  const undo = useCallback(
    async (kind: RecordKind, record: Row) => {
      if (!spec) return;
      const side = kind === level.left.kind ? 'left' : 'right';
      const match = await reconApi.matchOf(level.slug, side, Number(record.id)).catch(() => null);
      onUndo(detailUndoTarget(level, spec, kind, record, data, match, t));
    },
    [level, spec, data, onUndo, t],
  );

  const actions = useCallback(
    (kind: RecordKind) => (record: Row) => (
      <>
        <button type="button" className="grid-icon-button" title={t('recon.chain.open')} aria-label={t('recon.chain.open')} data-testid={`details-chain-${kind}-${String(record.id)}`} onClick={() => onChain({ kind, id: Number(record.id) })}>
          <i className="pi pi-sitemap" aria-hidden="true" />
        </button>
        {record.MatchId != null && (
          <button
            type="button"
            className="grid-icon-button grid-icon-button--danger"
            title={t('recon.undo.title')}
            aria-label={t('recon.undo.title')}
            data-testid={`details-undo-${kind}-${String(record.id)}`}
            onClick={() => void undo(kind, record)}
          >
            <i className="pi pi-undo" aria-hidden="true" />
          </button>
        )}
      </>
    ),
    [t, onChain, undo],
  );

  const ids = (rows: Row[] | undefined) => (rows ?? []).map((r) => Number(r.id)).filter((n) => Number.isFinite(n));
  const context = row && spec ? detailContext(spec, row, user?.dateFormat) : '';

  return (
    <Dialog
      visible={row !== null}
      onHide={onClose}
      header={`${spec ? t(spec.title) : t(level.name)} · ${context}`}
      modal
      maximizable
      dismissableMask
      // The grids take the dialog's height: a tall dialog shows more records, not empty space.
      style={{ width: 'min(1500px, 96vw)', height: '90vh' }}
      className="recon-details"
      data-testid="details-dialog"
      footer={
        <div className="recon-dialog__footer">
          {spec?.createTask && (
            <Button
              type="button"
              icon="pi pi-plus"
              label={t('recon.details.createTask')}
              disabled={!data}
              onClick={() =>
                onCreateTask({
                  ticketIds: ids(data?.item1),
                  transactionIds: ids(data?.item2),
                  tickets: (data?.item1 ?? []).map(taskTicket),
                  transactions: (data?.item2 ?? []).map(taskTransaction),
                  context,
                })
              }
              data-testid="details-create-task"
            />
          )}
          <Button type="button" text label={t('common.close')} onClick={onClose} data-testid="details-close" />
        </div>
      }
    >
      {failure && <Message severity="error" text={failure} className="recon-dialog__message" />}
      <div className="recon-dialog__pair">
        {sides.map((side, i) => {
          const rows = (i === 0 ? data?.item1 : data?.item2) ?? [];
          return (
            <section key={side.kind} className="recon-dialog__side">
              <h3 className="recon-dialog__heading">
                {t(`recon.kinds.${side.kind}`)} <span className="muted">· {data ? t('recon.manual.count', { count: rows.length }) : t('grid.loading')}</span>
              </h3>
              <RecordGrid rows={rows} columns={side.columns} height="100%" testId={`details-grid-${i + 1}`} withStatus actions={actions(side.kind)} actionsWidth={66} />
            </section>
          );
        })}
      </div>
    </Dialog>
  );
}
