import { useTranslation } from 'react-i18next';
import { Checkbox } from 'primereact/checkbox';
import { allSelected, someSelected, toggleAll, toggleOne } from '../lib/selection';

export interface CheckboxItem {
  id: number;
  label: string;
}

/**
 * A select-all checkbox over one checkbox per item (user roles, role screens). With `disabled`
 * every box is read-only, e.g. the Administrator role, which always grants every screen.
 */
export function CheckboxList({
  name,
  items,
  selected,
  onChange,
  disabled = false,
  emptyText,
}: {
  name: string;
  items: CheckboxItem[];
  selected: number[];
  onChange: (ids: number[]) => void;
  disabled?: boolean;
  emptyText?: string;
}) {
  const { t } = useTranslation();
  const ids = items.map((item) => item.id);
  const all = allSelected(ids, selected);
  const some = !all && someSelected(ids, selected);

  if (items.length === 0) return <p className="muted">{emptyText}</p>;

  return (
    <div className="checkbox-list" data-testid={`${name}-list`}>
      <div className="checkbox-list__all">
        <Checkbox
          inputId={`${name}-all`}
          checked={all}
          disabled={disabled}
          onChange={(e) => onChange(toggleAll(ids, !!e.checked))}
          data-testid={`${name}-select-all`}
          className={some ? 'is-partial' : undefined}
        />
        <label htmlFor={`${name}-all`}>{t('common.selectAll')}</label>
      </div>
      <div className="checkbox-list__items">
        {items.map((item) => (
          <div className="checkbox-list__item" key={item.id}>
            <Checkbox
              inputId={`${name}-${item.id}`}
              checked={selected.includes(item.id)}
              disabled={disabled}
              onChange={(e) => onChange(toggleOne(ids, selected, item.id, !!e.checked))}
              data-testid={`${name}-${item.id}`}
            />
            <label htmlFor={`${name}-${item.id}`}>{item.label}</label>
          </div>
        ))}
      </div>
    </div>
  );
}
