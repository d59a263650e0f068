/**
 * The inside of an expander row: one small table per detail view of the row (views.yaml
 * `details`), each the detail view's rows whose field equals the row's key, read through the
 * same grid call as any grid and shown with the same field formats. A detail shows its first
 * DETAIL_ROWS records and says how many there are.
 */
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCurrentUser } from '../../auth/useSession';
import { engineApi } from '../api';
import { fieldType, formatValue, type FormatContext } from '../fields';
import { useViewMeta } from '../useMeta';
import type { ColumnMeta, DetailMeta, Row, ViewMeta } from '../types';

export const DETAIL_ROWS = 50;

export function DetailGrids({ details, parentKey, refreshed }: { details: DetailMeta[]; parentKey: unknown; refreshed: number }) {
  return (
    <div className="grid-detail__grids">
      {details.map((d) => (
        <DetailGrid key={d.view} detail={d} parentKey={parentKey} refreshed={refreshed} />
      ))}
    </div>
  );
}

type Answer = { rows: Row[]; total: number } | 'loading' | 'failed';

function DetailGrid({ detail, parentKey, refreshed }: { detail: DetailMeta; parentKey: unknown; refreshed: number }) {
  const { t } = useTranslation();
  const { view, error } = useViewMeta(detail.view);
  const [answer, setAnswer] = useState<Answer>('loading');

  useEffect(() => {
    if (!view) return;
    let live = true;
    engineApi
      .page({
        ViewName: view.name,
        PageSize: DETAIL_ROWS,
        PageNumber: 0,
        Filters: [{ field: detail.field, op: 'equals', value: parentKey }],
        SortField: view.defaultSort.field,
        SortOrder: view.defaultSort.order,
      })
      .then((page) => live && setAnswer({ rows: page.dataList ?? [], total: page.totalCount ?? 0 }))
      .catch(() => live && setAnswer('failed'));
    return () => {
      live = false;
    };
  }, [view, detail.field, parentKey, refreshed]);

  const title = t(detail.title);
  const failed = !!error || answer === 'failed';
  return (
    <section className="grid-detail__grid" data-testid={`detail-${detail.view}`}>
      <h4>
        {title}
        {typeof answer === 'object' && ` (${answer.total})`}
      </h4>
      {failed ? (
        <p className="grid-detail__note grid-detail__note--error">{t('grid.detailFailed')}</p>
      ) : !view || answer === 'loading' ? (
        <p className="grid-detail__note">{t('grid.loading')}</p>
      ) : answer.rows.length === 0 ? (
        <p className="grid-detail__note">{t('grid.detailEmpty')}</p>
      ) : (
        <DetailTable view={view} rows={answer.rows} total={answer.total} />
      )}
    </section>
  );
}

function DetailTable({ view, rows, total }: { view: ViewMeta; rows: Row[]; total: number }) {
  const { t, i18n } = useTranslation();
  const user = useCurrentUser();
  const columns = useMemo(() => view.columns.filter((c) => !c.hidden), [view]);
  const ctx = useMemo<FormatContext>(
    () => ({
      locale: i18n.language || 'en',
      dateFormat: user?.dateFormat,
      enumLabel: (c: ColumnMeta, value: string) => t(`views.${view.name}.values.${c.field}.${value}`, { defaultValue: value }),
      yesNo: { yes: t('common.yes'), no: t('common.no') },
    }),
    [i18n.language, user?.dateFormat, t, view.name],
  );
  const end = (c: ColumnMeta) => (fieldType(c.type).align === 'end' ? 'num' : undefined);
  return (
    <>
      <table className="grid-detail__table">
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.field} className={end(c)}>
                {t(c.label, { defaultValue: c.field })}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={String(row[view.key])}>
              {columns.map((c) => (
                <td key={c.field} className={end(c)}>
                  {formatValue(row[c.field], c, ctx)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {total > rows.length && <p className="grid-detail__note">{t('grid.detailFirst', { shown: rows.length, total })}</p>}
    </>
  );
}
