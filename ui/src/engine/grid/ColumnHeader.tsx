/**
 * A grid column's header, the same for every column: its name, the sort arrow of the order the
 * grid reads it in, and a filter button (filled while a filter is set) that opens the column's
 * filter popover.
 */
import type { MouseEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { SortDirection } from 'react-data-grid';

export function ColumnHeader({
  field,
  name,
  sortDirection,
  filterable,
  filtered,
  openFilter,
}: {
  field: string;
  name: string;
  sortDirection: SortDirection | undefined;
  filterable: boolean;
  filtered: boolean;
  openFilter: (field: string, event: MouseEvent<HTMLElement>) => void;
}) {
  const { t } = useTranslation();
  return (
    <span className="grid-header" data-testid={`header-${field}`}>
      <span className="grid-header__label" title={name}>
        {name}
      </span>
      {sortDirection && (
        <i
          className={`pi ${sortDirection === 'ASC' ? 'pi-sort-amount-up-alt' : 'pi-sort-amount-down'} grid-header__sort`}
          aria-label={sortDirection === 'ASC' ? t('grid.sortAsc') : t('grid.sortDesc')}
        />
      )}
      {filterable && (
        <button
          type="button"
          className={`grid-header__filter${filtered ? ' is-active' : ''}`}
          title={t('grid.filter.title', { column: name })}
          aria-label={t('grid.filter.title', { column: name })}
          data-testid={`filter-${field}`}
          onClick={(event) => {
            event.stopPropagation();
            openFilter(field, event);
          }}
          onKeyDown={(event) => event.stopPropagation()}
        >
          <i className={`pi ${filtered ? 'pi-filter-fill' : 'pi-filter'}`} aria-hidden="true" />
        </button>
      )}
    </span>
  );
}
