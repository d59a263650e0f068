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
import { errorText, reconApi, type ChainRef, type LevelDef, type RecordColumn, type RecordKind } from './recon';
import { RecordGrid } from './RecordGrid';
import type { UndoTarget } from './UndoMatchDialog';
import type { TaskLinks } from './CreateTaskFromDetails';

const c = (field: string, type: RecordColumn['type'] = 'text'): RecordColumn => ({ field, type });
const day = (v: unknown) => (typeof v === 'string' ? v.slice(0, 10) : '');

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
      { kind: 'ticket', columns: [c('TicketNumber'), c('TransactionDate', 'date'), c('PaymentType'), c('CountryCode'), c('Currency'), c('TransactionCode'), c('TotalFareWithFees', 'decimal'), c('id', 'int')] },
      { kind: 'transaction', columns: [c('ProcessingDate', 'date'), c('AcquiringBank'), c('currency'), c('ClientUniqueID'), c('Amount', 'decimal'), c('ProviderActor'), c('id', 'int')] },
    ],
    request: (row) => ({ Currency: row.SalesCurrency ?? '', SelectDate: day(row.TicketDate), PaymentType: row.PaymentType ?? '', CountryCode: row.CountryCode ?? '' }),
    context: (row) => [row.SalesCurrency, day(row.TicketDate), row.PaymentType, row.CountryCode],
    createTask: true,
  },
  VW_ReconTransactionSettlement: {
    title: 'recon.details.transactionSettlement',
    sides: [
      { kind: 'transaction', columns: [c('TicketNumber'), c('TransactionDate', 'date'), c('AcquiringBank'), c('PaymentMethod'), c('Currency'), c('Amount', 'decimal'), c('TransactionType'), c('id', 'int')] },
      { kind: 'settlement', columns: [c('MovementDate', 'date'), c('AcquirerBank'), c('Currency'), c('Amount', 'decimal'), c('PayoutID'), c('ClientUniqueID'), c('id', 'int')] },
    ],
    request: (row) => ({ Currency: row.TransCurrency ?? '', SelectDate: day(row.TransDate), ProviderActor: row.ProviderActor ?? '' }),
    context: (row) => [row.TransCurrency, day(row.TransDate), row.ProviderActor],
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
            onClick={() => onUndo({ slug: level.slug, matchId: Number(record.MatchId), what: `${t(`recon.kinds.${kind}`)} ${String(record.TicketNumber ?? record.ClientUniqueID ?? record.id)}` })}
          >
            <i className="pi pi-undo" aria-hidden="true" />
          </button>
        )}
      </>
    ),
    [t, onChain, onUndo, level.slug],
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
      style={{ width: 'min(1500px, 96vw)' }}
      data-testid="details-dialog"
      footer={
        <div className="recon-dialog__footer">
          {spec?.createTask && (
            <Button
              type="button"
              icon="pi pi-plus"
              label={t('recon.details.createTask')}
              disabled={!data}
              onClick={() => onCreateTask({ ticketIds: ids(data?.item1), transactionIds: ids(data?.item2), context })}
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
              <RecordGrid rows={rows} columns={side.columns} height={360} testId={`details-grid-${i + 1}`} withStatus actions={actions(side.kind)} actionsWidth={66} />
            </section>
          );
        })}
      </div>
    </Dialog>
  );
}
