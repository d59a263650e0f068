import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredParams, openRowsFilter, rowBadge, rowStatusClass, statusFilterColumn } from './rowStatus';
import type { ColumnMeta, RowStatusMeta, ViewMeta } from '../types';

/** The rowStatus rules as views.yaml declares them (read from the file, not copied). */
function rule(view: string): RowStatusMeta {
  const yaml = readFileSync(path.resolve(__dirname, '../../../../views.yaml'), 'utf8');
  const block = yaml.slice(yaml.indexOf(`  ${view}:`));
  const status = block.slice(block.indexOf('    rowStatus:'), block.indexOf('    columns:'));
  const field = /field: (\S+)/.exec(status)![1]!;
  const values: RowStatusMeta['values'] = {};
  for (const m of status.matchAll(/'?([\w]+)'?: \{label: ([\w.]+), severity: (\w+)\}/g)) {
    if (m[1] !== 'otherwise') values[m[1]!] = { label: m[2]!, severity: m[3] as 'success' };
  }
  const otherwise = /otherwise: \{label: ([\w.]+), severity: (\w+)\}/.exec(status)!;
  return { field, values, otherwise: { label: otherwise[1]!, severity: otherwise[2] as 'success' } };
}

describe('row colours from metadata (views.yaml rowStatus)', () => {
  it('tickets vs transactions: 1 unmatched, 2 partial, anything else matched', () => {
    const r = rule('VW_ReconTicketTransaction');
    expect(r.field).toBe('ReconcileStatusNumber');
    expect(rowStatusClass(r, { ReconcileStatusNumber: 1 })).toBe('grid-row--danger');
    expect(rowStatusClass(r, { ReconcileStatusNumber: 2 })).toBe('grid-row--warning');
    expect(rowStatusClass(r, { ReconcileStatusNumber: 3 })).toBe('grid-row--success');
    expect(rowStatusClass(r, { ReconcileStatusNumber: null })).toBe('grid-row--success');
    expect(rowBadge(r, { ReconcileStatusNumber: 1 })?.label).toBe('recon.status.unmatched');
  });

  it('ticket-only lookup: 1 matched, 2/3/4 partial, anything else unmatched', () => {
    const r = rule('VW_ReconTicketLookup');
    expect([1, 2, 3, 4, 5, null].map((n) => rowBadge(r, { ReconciliationStatusNumber: n })?.severity)).toEqual(['success', 'warning', 'warning', 'warning', 'danger', 'danger']);
  });

  it('settlements vs bank: 1 matched, 2 partial, anything else unmatched', () => {
    const r = rule('VW_ReconSettlementBank');
    expect([1, 2, 0, undefined].map((n) => rowStatusClass(r, { ReconStatusNumber: n }))).toEqual(['grid-row--success', 'grid-row--warning', 'grid-row--danger', 'grid-row--danger']);
  });

  it('transactions vs settlements: by the status word the report derives from the variance', () => {
    const r = rule('VW_ReconTransactionSettlement');
    expect(rowBadge(r, { ReconStatus: 'Matched' })?.severity).toBe('success');
    expect(rowBadge(r, { ReconStatus: 'Partial' })?.severity).toBe('warning');
    expect(rowBadge(r, { ReconStatus: 'Unmatched' })?.severity).toBe('danger');
    expect(rowBadge(r, {})?.severity).toBe('danger');
  });

  it('no rule, no class; a rule without otherwise leaves unknown values plain', () => {
    expect(rowStatusClass(undefined, { a: 1 })).toBeUndefined();
    expect(rowBadge({ field: 'a', values: { '1': { label: 'x', severity: 'info' } } }, { a: 2 })).toBeNull();
  });

  it('params: only the names the view declares, none for a plain view', () => {
    const view = { params: [{ name: 'fromDate', type: 'date' }, { name: 'currency', type: 'text', list: true }] } as unknown as ViewMeta;
    expect(declaredParams(view, { fromDate: '2026-11-01', currency: ['USD'], clientUniqueId: '1' })).toEqual({ fromDate: '2026-11-01', currency: ['USD'] });
    expect(declaredParams({ params: [] } as unknown as ViewMeta, { a: 1 })).toBeUndefined();
    expect(declaredParams(view, undefined)).toBeUndefined();
  });
});

describe('openRowsFilter', () => {
  it('keeps the rows that are not a success, in one filter where the rule allows it', () => {
    // a success fallback: the listed values that are not
    expect(
      openRowsFilter({ field: 'N', values: { '1': { label: 'u', severity: 'danger' }, '2': { label: 'p', severity: 'warning' } }, otherwise: { label: 'm', severity: 'success' } }),
    ).toEqual({ op: 'in', value: '1,2', values: ['1', '2'] });
    // one success value and an unsuccessful fallback: every value but it
    expect(
      openRowsFilter({ field: 'N', values: { '1': { label: 'm', severity: 'success' }, '2': { label: 'p', severity: 'warning' } }, otherwise: { label: 'u', severity: 'danger' } }),
    ).toEqual({ op: 'notEquals', value: '1' });
    // two success values beside an unsuccessful fallback cannot be one filter
    expect(
      openRowsFilter({ field: 'N', values: { a: { label: 'm', severity: 'success' }, b: { label: 'm', severity: 'success' } }, otherwise: { label: 'u', severity: 'danger' } }),
    ).toBeNull();
    expect(openRowsFilter(undefined)).toBeNull();
  });

  it('leaves a closed status out, and with every value listed keeps the open ones', () => {
    // the approvals: pending is open; approved and rejected need nothing more
    expect(
      openRowsFilter({
        field: 'Status',
        values: {
          pending: { label: 'p', severity: 'warning' },
          approved: { label: 'a', severity: 'success' },
          rejected: { label: 'r', severity: 'danger', closed: true },
        },
      }),
    ).toEqual({ op: 'in', value: 'pending', values: ['pending'] });
  });
});

describe('the status as a filter', () => {
  const view = (name: string): ViewMeta => {
    const r = rule(name);
    const column: ColumnMeta = { field: r.field, type: r.field === 'ReconStatus' ? 'text' : 'int', label: r.field, hidden: true, sortable: true, ops: ['equals', 'in'] };
    return { name, rowStatus: r, columns: [column] } as unknown as ViewMeta;
  };

  it('every report lists every status its rows have, so each is a choice of the filter', () => {
    expect(statusFilterColumn(view('VW_ReconTicketTransaction'))?.values).toEqual(['1', '2', '3']);
    expect(statusFilterColumn(view('VW_ReconTicketLookup'))?.values).toEqual(['1', '2', '3', '4', '5']);
    expect(statusFilterColumn(view('VW_ReconTransactionSettlement'))?.values).toEqual(['Matched', 'Partial', 'Unmatched']);
    expect(statusFilterColumn(view('VW_ReconSettlementBank'))?.values).toEqual(['1', '2', '3']);
    const column = statusFilterColumn(view('VW_ReconTicketTransaction'))!;
    expect(column).toMatchObject({ field: 'ReconcileStatusNumber', type: 'enum', hidden: false, label: 'grid.status', ops: ['in', 'equals', 'notEquals'] });
  });

  it('Open only keeps the statuses that are not a success', () => {
    expect(openRowsFilter(rule('VW_ReconTicketTransaction'))).toEqual({ op: 'in', value: '1,2', values: ['1', '2'] });
    expect(openRowsFilter(rule('VW_ReconSettlementBank'))).toEqual({ op: 'notEquals', value: '1' });
  });

  it('no rule or no column of its field: no status filter', () => {
    expect(statusFilterColumn({ columns: [] } as unknown as ViewMeta)).toBeNull();
    expect(statusFilterColumn({ rowStatus: rule('VW_ReconSettlementBank'), columns: [] } as unknown as ViewMeta)).toBeNull();
  });
});
