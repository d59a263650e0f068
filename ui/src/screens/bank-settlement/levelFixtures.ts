/**
 * Test data: GET /recon/levels as the server answers it for the three levels of recon.yaml, and
 * a fourth level to show that a level added there needs no UI change. Only tests import this.
 * The first level names its sides' amount and currency fields; the others answer as an older
 * server did, without them.
 */
import type { LevelDef, RecordColumn } from './recon';

const c = (field: string, type: RecordColumn['type'] = 'text'): RecordColumn => ({ field, type });

const ticketColumns = [c('id', 'int'), c('ticket_number'), c('trans_date', 'date'), c('local_fare_currency'), c('transaction_code'), c('SaleAmount', 'decimal')];
const transactionColumns = [
  c('id', 'int'),
  c('ClientUniqueID'),
  c('ProcessingDate', 'date'),
  c('AcquiringBank'),
  c('PaymentMethod'),
  c('currency'),
  c('TransactionAmount', 'decimal'),
  c('TransactionType'),
  c('ProviderActor'),
];
const settlementColumns = [
  c('id', 'int'),
  c('ClientUniqueID'),
  c('SettlementDate', 'date'),
  c('AcquirerBank'),
  c('SettlementCurrency'),
  c('SettlementNet', 'decimal'),
  c('GrossAmount', 'decimal'),
  c('PayoutID'),
  c('ProviderActor'),
];

const statuses = (matched: string, partial: string, unmatched: string): LevelDef['statuses'] => [
  { value: matched, label: 'recon.status.matched', severity: 'success' },
  { value: partial, label: 'recon.status.partlyMatched', severity: 'warning' },
  { value: unmatched, label: 'recon.status.unmatched', severity: 'danger' },
];

export const TEST_LEVELS: LevelDef[] = [
  {
    slug: 'ticket-transaction',
    number: 1,
    name: 'recon.tabs.ticketTransaction',
    left: { kind: 'ticket', field: 'ticketId', label: 'recon.kinds.ticket', columns: ticketColumns, amountField: 'SaleAmount', currencyField: 'local_fare_currency', refField: 'ticket_number' },
    right: { kind: 'transaction', field: 'transactionId', label: 'recon.kinds.transaction', columns: transactionColumns, amountField: 'TransactionAmount', currencyField: 'currency', refField: 'ClientUniqueID' },
    reportView: 'VW_ReconTicketTransaction',
    lookupView: 'VW_ReconTicketLookup',
    dialog: 'left',
    investigate: true,
    details: true,
    filters: ['provider', 'ticket'],
    chainFrom: [],
    statuses: statuses('3', '2', '1'),
    hint: 'recon.dashboard.hint',
  },
  {
    slug: 'transaction-settlement',
    number: 2,
    name: 'recon.tabs.transactionSettlement',
    left: { kind: 'transaction', field: 'transactionId', label: 'recon.kinds.transaction', columns: transactionColumns.filter((col) => col.field !== 'PaymentMethod') },
    right: { kind: 'settlement', field: 'settlementId', label: 'recon.kinds.settlement', columns: settlementColumns },
    reportView: 'VW_ReconTransactionSettlement',
    lookupView: null,
    dialog: 'left',
    investigate: false,
    details: true,
    filters: ['provider', 'ticket'],
    chainFrom: [],
    statuses: statuses('Matched', 'Partial', 'Unmatched'),
    hint: 'recon.dashboard.hint',
  },
  {
    slug: 'settlement-bank',
    number: 3,
    name: 'recon.tabs.settlementBank',
    left: {
      kind: 'payout',
      field: 'payoutId',
      label: 'recon.kinds.payout',
      columns: [c('id', 'int'), c('PayoutID'), c('SettlementAmount', 'decimal'), c('SettlementCurrency'), c('SettlementSummaryDate', 'date'), c('ProviderActor'), c('SettlementCount', 'int')],
    },
    right: {
      kind: 'bank',
      field: 'bankId',
      label: 'recon.kinds.bank',
      columns: [c('id', 'int'), c('BankAccount'), c('ReconciliationAmountLocal', 'decimal'), c('Charges', 'decimal'), c('Currency'), c('BookedDate', 'date'), c('ProviderActor'), c('Text')],
    },
    reportView: 'VW_ReconSettlementBank',
    lookupView: null,
    dialog: 'right',
    investigate: false,
    details: false,
    filters: [],
    chainFrom: [
      { field: 'BankId', side: 'bank', by: 'id' },
      { field: 'PayoutID', side: 'payout', by: 'ref' },
    ],
    statuses: statuses('1', '2', '3'),
    hint: 'recon.dashboard.hintBank',
  },
];

/** A level recon.yaml could add over existing sides: tickets against settlements, no details, no lookup. */
export const FOURTH_LEVEL: LevelDef = {
  slug: 'ticket-settlement',
  number: 4,
  name: 'Tickets vs Settlements',
  left: { kind: 'ticket', field: 'ticketId', label: 'recon.kinds.ticket', columns: [c('id', 'int'), c('ticket_number'), c('SaleAmount', 'decimal')] },
  right: { kind: 'settlement', field: 'settlementId', label: 'recon.kinds.settlement', columns: [c('id', 'int'), c('ClientUniqueID'), c('GrossAmount', 'decimal'), c('SettlementBatch')] },
  reportView: 'VW_ReconTicketSettlement',
  lookupView: null,
  dialog: 'right',
  investigate: false,
  details: false,
  filters: ['ticket'],
  chainFrom: [{ field: 'TicketId', side: 'ticket', by: 'id' }],
  statuses: [
    { value: 'M', label: 'recon.status.matched', severity: 'success' },
    { value: 'C', label: 'recon.status.changed', severity: 'warning' },
    { value: 'U', label: 'recon.status.unmatched', severity: 'danger' },
  ],
  hint: 'recon.dashboard.hint',
};

/** The levels with one looked up by slug, for tests that open a dialog of one level. */
export function testLevel(slug: string): LevelDef {
  const level = [...TEST_LEVELS, FOURTH_LEVEL].find((l) => l.slug === slug);
  if (!level) throw new Error(`no test level ${slug}`);
  return level;
}
