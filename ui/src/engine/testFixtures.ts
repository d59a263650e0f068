/** Metadata as the server serves it, for the engine's component tests. */
import type { ColumnMeta, FormMeta, ViewMeta } from './types';

const textOps = ['contains', 'startsWith', 'endsWith', 'equals', 'notEquals', 'in', 'isEmpty', 'isNotEmpty'] as ColumnMeta['ops'];
const rangeOps = ['equals', 'notEquals', 'lt', 'lte', 'gt', 'gte', 'between', 'in', 'isEmpty', 'isNotEmpty'] as ColumnMeta['ops'];

export const countryView: ViewMeta = {
  name: 'VW_TblMasterCountry',
  key: 'CountryID',
  screen: 10,
  export: 'Country_List',
  editable: true,
  editName: 'TblMasterCountry',
  version: 'UpdatedOn',
  defaultSort: { field: 'CountryName', order: 'asc' },
  countCap: 10000,
  maxPageSize: 1000,
  columns: [
    { field: 'CountryCode', type: 'text', label: 'views.VW_TblMasterCountry.fields.CountryCode', editable: true, sortable: true, maxLength: 3, ops: textOps },
    { field: 'CountryName', type: 'text', label: 'views.VW_TblMasterCountry.fields.CountryName', editable: true, sortable: true, maxLength: 100, ops: textOps },
    { field: 'Amount', type: 'decimal', label: 'Amount', scale: 2, sortable: true, ops: rangeOps },
    { field: 'UpdatedOn', type: 'datetime', label: 'views.VW_TblMasterCountry.fields.UpdatedOn', hidden: true, sortable: true, ops: rangeOps },
    { field: 'CountryID', type: 'int', label: 'views.VW_TblMasterCountry.fields.CountryID', hidden: true, sortable: true, ops: rangeOps },
  ],
};

export function countryRows(count: number, from = 0) {
  return Array.from({ length: count }, (_, i) => ({
    CountryCode: `C${String(from + i).padStart(2, '0')}`,
    CountryName: `Country ${from + i}`,
    Amount: '1234.5',
    UpdatedOn: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z`,
    CountryID: from + i + 1,
  }));
}

/** A form with an exact decimal (engine/meta.go: type string, format decimal, the decimal widget). */
export const rateForm: FormMeta = {
  name: 'exchangeRate',
  resource: 'CurrencyExchangeRate',
  key: 'ExchangeId',
  title: 'forms.exchangeRate.title',
  width: 500,
  success: 'messages.rateAdded',
  schema: {
    type: 'object',
    required: ['usd'],
    properties: {
      usd: { type: 'string', format: 'decimal', minimum: 0, default: '0', title: 'forms.exchangeRate.fields.usd' },
    },
  },
  uiSchema: { 'ui:order': ['usd'], usd: { 'ui:widget': 'decimal', 'ui:options': { scale: 8 } } },
};

export const countryForm: FormMeta = {
  name: 'country',
  resource: 'Country',
  key: 'CountryID',
  title: 'forms.country.title',
  width: 500,
  success: 'messages.countryAdded',
  schema: {
    type: 'object',
    required: ['countryCode', 'countryName'],
    properties: {
      countryCode: { type: 'string', maxLength: 3, title: 'forms.country.fields.countryCode' },
      countryName: { type: 'string', maxLength: 100, title: 'forms.country.fields.countryName' },
    },
  },
  uiSchema: {
    'ui:order': ['countryCode', 'countryName'],
    countryCode: { 'ui:options': { transform: ['trim', 'upper'] } },
    countryName: { 'ui:options': { transform: ['trim'] } },
  },
};

/** A report view (declared params, rowStatus: 1 unmatched, 2 partial, else matched) with the given columns. */
export function reportViewFixture(name: string, params: string[], columns: ColumnMeta[]): ViewMeta {
  return {
    name,
    key: 'RowKey',
    screen: 13,
    editable: false,
    defaultSort: { field: 'Day', order: 'asc' },
    countCap: 10000,
    maxPageSize: 1000,
    params: params.map((p) => ({ name: p, type: p.endsWith('Date') ? 'date' : 'text', list: p === 'currency' || p === 'provider' })),
    rowStatus: {
      field: 'StatusNumber',
      values: { '1': { label: 'recon.status.unmatched', severity: 'danger' }, '2': { label: 'recon.status.partlyMatched', severity: 'warning' } },
      otherwise: { label: 'recon.status.matched', severity: 'success' },
    },
    columns,
  };
}
