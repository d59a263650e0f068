/**
 * The grid toolbar's saved filter sets (NocoDB's and Directus's "views"): the user's named sets
 * of column filters and sort for this grid, one click to apply one, a trash icon to delete one,
 * and "Save current filters…" asking for a name (the name of a set already kept replaces it).
 */
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { Dialog } from 'primereact/dialog';
import { InputText } from 'primereact/inputtext';
import { OverlayPanel } from 'primereact/overlaypanel';
import { MAX_SET_NAME, type FilterSet } from './gridPrefs';
import './gridPrefs.css';

export interface FilterSetsProps {
  sets: FilterSet[];
  /** The set the grid shows now (its filters and sort), if any. */
  active: FilterSet | undefined;
  onApply(set: FilterSet): void;
  /** False when the name could not be saved (the caller says why). */
  onSave(name: string): boolean;
  onDelete(set: FilterSet): void;
}

export function FilterSets({ sets, active, onApply, onSave, onDelete }: FilterSetsProps) {
  const { t } = useTranslation();
  const panel = useRef<OverlayPanel>(null);
  const content = useRef<HTMLDivElement>(null);
  const [naming, setNaming] = useState(false);
  const [name, setName] = useState('');
  const [tried, setTried] = useState(false);

  const startNaming = () => {
    panel.current?.hide();
    setName(active?.name ?? '');
    setTried(false);
    setNaming(true);
  };
  const save = () => {
    setTried(true);
    if (name.trim() === '') return;
    if (onSave(name)) setNaming(false);
  };

  return (
    <>
      <Button
        type="button"
        size="small"
        text
        icon={active ? 'pi pi-bookmark-fill' : 'pi pi-bookmark'}
        label={active ? active.name : t('grid.filterSets.button')}
        title={active ? `${t('grid.filterSets.button')}: ${active.name}` : t('grid.filterSets.button')}
        aria-haspopup="dialog"
        className="grid-prefs-button grid-filter-sets__button"
        data-testid="grid-filter-sets"
        onClick={(event) => panel.current?.toggle(event)}
      />
      <OverlayPanel ref={panel} className="grid-prefs-panel" aria-label={t('grid.filterSets.title')} onShow={() => content.current?.querySelector<HTMLElement>('button')?.focus()}>
        <div className="grid-filter-sets" data-testid="grid-filter-sets-panel" ref={content}>
          <div className="grid-prefs-panel__title">{t('grid.filterSets.title')}</div>
          {sets.length === 0 ? (
            <p className="grid-prefs-panel__hint">{t('grid.filterSets.none')}</p>
          ) : (
            <ul className="grid-filter-sets__list">
              {sets.map((set) => (
                <li key={set.name} className={`grid-filter-sets__item${set === active ? ' is-active' : ''}`}>
                  <button
                    type="button"
                    className="grid-filter-sets__apply"
                    title={t('grid.filterSets.apply', { name: set.name })}
                    data-testid={`filter-set-${set.name}`}
                    onClick={() => {
                      panel.current?.hide();
                      onApply(set);
                    }}
                  >
                    {set === active && <i className="pi pi-check" aria-hidden="true" />}
                    <span>{set.name}</span>
                  </button>
                  <button
                    type="button"
                    className="grid-icon-button grid-icon-button--danger"
                    title={t('grid.filterSets.delete', { name: set.name })}
                    aria-label={t('grid.filterSets.delete', { name: set.name })}
                    data-testid={`filter-set-delete-${set.name}`}
                    onClick={() => onDelete(set)}
                  >
                    <i className="pi pi-trash" aria-hidden="true" />
                  </button>
                </li>
              ))}
            </ul>
          )}
          <div className="grid-prefs-panel__actions">
            <Button type="button" size="small" text icon="pi pi-save" label={t('grid.filterSets.save')} onClick={startNaming} data-testid="grid-filter-sets-save" />
          </div>
        </div>
      </OverlayPanel>
      <Dialog
        visible={naming}
        header={t('grid.filterSets.saveTitle')}
        style={{ width: '360px' }}
        onHide={() => setNaming(false)}
        data-testid="filter-set-dialog"
        footer={
          <div>
            <Button type="button" label={t('grid.cancel')} outlined onClick={() => setNaming(false)} />
            <Button type="button" label={t('grid.filterSets.saveButton')} icon="pi pi-save" onClick={save} data-testid="filter-set-save" />
          </div>
        }
      >
        <div className="action-input">
          <label htmlFor="filter-set-name">{t('grid.filterSets.name')}</label>
          <InputText
            id="filter-set-name"
            value={name}
            autoFocus
            maxLength={MAX_SET_NAME}
            invalid={tried && name.trim() === ''}
            onChange={(e) => setName(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') save();
            }}
            data-testid="filter-set-name"
          />
          {tried && name.trim() === '' && <small className="p-error">{t('grid.filterSets.nameRequired')}</small>}
          {sets.some((s) => s.name === name.trim()) && <small className="grid-prefs-panel__hint">{t('grid.filterSets.replaces')}</small>}
        </div>
      </Dialog>
    </>
  );
}
