/**
 * The headless grid controller (the react-admin list-controller idea): it owns paging, sort,
 * filters and the rows of one view, builds the grid request and loads pages. GridView only
 * renders what it returns, so the request rules are testable without any table on screen.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { getAppConfig } from '../config/appConfig';
import { engineApi } from './api';
import { filterCondition, type FilterInput } from './fields';
import { declaredParams } from './grid/rowStatus';
import type { FilterCondition, GridRequest, Row, ViewMeta } from './types';

/** Typing in a filter waits this long before the first page is asked for (spec 03 §9). */
export const FILTER_DEBOUNCE_MS = 300;

export interface UserSort {
  field: string;
  order: 'asc' | 'desc';
}

export interface GridState {
  rows: Row[];
  totalCount: number;
  totalCapped: boolean;
  loading: boolean;
  error: string | null;
  /** Row offset of the page shown (the request's PageNumber). */
  offset: number;
  pageSize: number;
  pageSizes: number[];
  /** The user's sort; null means the view's default sort. */
  sort: UserSort | null;
  filters: Record<string, FilterInput>;
  /** The conditions the current page was asked with (the export sends the same). */
  conditions: FilterCondition[];
}

export interface GridController extends GridState {
  setOffset(offset: number): void;
  setPageSize(size: number): void;
  setSort(sort: UserSort | null): void;
  setFilter(field: string, input: FilterInput | null): void;
  clearFilters(): void;
  /** Replaces every filter and the sort at once (a saved filter set), from the first page. */
  applyQuery(filters: Record<string, FilterInput>, sort: UserSort | null): void;
  /** Loads the current page again; `firstPage` goes back to offset 0 first. */
  refresh(firstPage?: boolean): void;
  /** Which page the rows shown belong to (the request without the reload count). */
  shownPage(): string;
  /**
   * Replaces the shown row with this key (after an inline edit) without a reload, if the rows
   * shown are still those of `page`: an answer that arrives after the user paged, sorted or
   * filtered is dropped rather than written over whatever row now sits there.
   */
  replaceRow(key: unknown, row: Row, page: string): void;
  /** The request without paging, for the export. */
  baseRequest(): Omit<GridRequest, 'PageSize' | 'PageNumber'>;
}

const NO_CONDITIONS: FilterCondition[] = [];

function initialPageSize(view: ViewMeta | null): { sizes: number[]; size: number } {
  const config = getAppConfig();
  const max = view?.maxPageSize && view.maxPageSize > 0 ? view.maxPageSize : Infinity;
  const sizes = (config.pageSizes?.length ? config.pageSizes : [10, 25, 50, 100]).filter((s) => s <= max);
  const wanted = config.defaultPageSize || 100;
  return { sizes, size: sizes.includes(wanted) ? wanted : (sizes[sizes.length - 1] ?? 100) };
}

/**
 * The grid's state and its server calls. `fixed` conditions (a deep link's filter, e.g. one
 * extraction-log row by Id) go with every request, before the user's own filters. `params` are
 * a report view's parameter values (sent as Params, only the names the view declares); a
 * changed set starts over at the first page.
 */
export function useGrid(view: ViewMeta | null, locale: string, fixed: FilterCondition[] = NO_CONDITIONS, params?: Record<string, unknown>): GridController {
  const paging = useMemo(() => initialPageSize(view), [view]);
  const [pageSize, setPageSizeState] = useState(paging.size);
  const [offset, setOffsetState] = useState(0);
  const [sort, setSortState] = useState<UserSort | null>(null);
  const [filters, setFilters] = useState<Record<string, FilterInput>>({});
  const [conditions, setConditions] = useState<FilterCondition[]>([]);
  const [reload, setReload] = useState(0);
  const [rows, setRows] = useState<Row[]>([]);
  const [total, setTotal] = useState({ count: 0, capped: false });
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);
  const shown = useRef('');

  // Filters become conditions after a pause in typing; a changed condition set starts over
  // at the first page. Incomplete inputs (a half-typed number) add no condition.
  const pendingConditions = useMemo(() => {
    if (!view) return [];
    const out: FilterCondition[] = [];
    for (const column of view.columns) {
      const input = filters[column.field];
      const condition = input && filterCondition(column, input, locale);
      if (condition) out.push(condition);
    }
    return out;
  }, [filters, view, locale]);
  const pendingKey = JSON.stringify(pendingConditions);
  const conditionsKey = JSON.stringify(conditions);

  useEffect(() => {
    if (pendingKey === conditionsKey) return undefined;
    const timer = setTimeout(() => {
      setConditions(JSON.parse(pendingKey) as FilterCondition[]);
      setOffsetState(0);
    }, FILTER_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [pendingKey, conditionsKey]);

  const sortSpec = sort ?? view?.defaultSort ?? null;

  const fixedKey = JSON.stringify(fixed);
  const paramsKey = useParamsKey(view, params, setOffsetState);
  const baseRequest = useCallback(
    (): Omit<GridRequest, 'PageSize' | 'PageNumber'> => ({
      ViewName: view?.name ?? '',
      Filters: [...(JSON.parse(fixedKey) as FilterCondition[]), ...(JSON.parse(conditionsKey) as FilterCondition[])],
      SortField: sortSpec?.field ?? '',
      SortOrder: sortSpec?.order ?? 'asc',
      ...(paramsKey ? { Params: JSON.parse(paramsKey) as Record<string, unknown> } : {}),
    }),
    [view, fixedKey, conditionsKey, sortSpec?.field, sortSpec?.order, paramsKey],
  );

  useEffect(() => {
    if (!view) return;
    const id = ++latest.current;
    const request = { ...baseRequest(), PageSize: pageSize, PageNumber: offset };
    setLoading(true);
    engineApi
      .page(request)
      .then((page) => {
        if (id !== latest.current) return; // an older request answered late
        shown.current = JSON.stringify(request);
        setRows(page.dataList ?? []);
        setTotal({ count: page.totalCount ?? 0, capped: !!page.totalCapped });
        setError(null);
      })
      .catch((err: unknown) => {
        if (id !== latest.current) return;
        shown.current = '';
        setRows([]);
        setTotal({ count: 0, capped: false });
        setError(err instanceof Error ? err.message : String(err));
      })
      .finally(() => {
        if (id === latest.current) setLoading(false);
      });
  }, [view, baseRequest, pageSize, offset, reload]);

  const setFilter = useCallback((field: string, input: FilterInput | null) => {
    setFilters((current) => {
      const next = { ...current };
      if (input) next[field] = input;
      else delete next[field];
      return next;
    });
  }, []);

  return {
    rows,
    totalCount: total.count,
    totalCapped: total.capped,
    loading,
    error,
    offset,
    pageSize,
    pageSizes: paging.sizes,
    sort,
    filters,
    conditions,
    setOffset: setOffsetState,
    setPageSize: (size) => {
      setPageSizeState(size);
      setOffsetState(0);
    },
    setSort: (next) => {
      setSortState(next);
      setOffsetState(0);
    },
    setFilter,
    clearFilters: () => setFilters({}),
    applyQuery: (nextFilters, nextSort) => {
      setFilters({ ...nextFilters });
      setSortState(nextSort);
      setOffsetState(0);
    },
    refresh: (firstPage = false) => {
      if (firstPage) setOffsetState(0);
      setReload((n) => n + 1);
    },
    shownPage: () => shown.current,
    replaceRow: (key, row, page) => {
      if (page !== shown.current || !view) return;
      setRows((current) => current.map((r) => (r[view.key] === key ? row : r)));
    },
    baseRequest,
  };
}

/** The declared params as a stable key; a new set of values goes back to the first page. */
function useParamsKey(view: ViewMeta | null, params: Record<string, unknown> | undefined, setOffset: (offset: number) => void): string {
  const declared = declaredParams(view, params);
  const key = declared ? JSON.stringify(declared) : '';
  // React's "adjust state while rendering" pattern: no render with the old offset.
  const [previous, setPrevious] = useState(key);
  if (previous !== key) {
    setPrevious(key);
    setOffset(0);
  }
  return key;
}
