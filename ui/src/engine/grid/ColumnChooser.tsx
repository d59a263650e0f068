/**
 * The grid toolbar's column chooser: every column the user may arrange, in the grid's order, with
 * a check box to show or hide it, a pin that freezes it at the grid's start, buttons that move it
 * one place (the keyboard's way to do what dragging a header does) and Reset layout.
 */
import { useId, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from 'primereact/button';
import { Checkbox } from 'primereact/checkbox';
import { OverlayPanel } from 'primereact/overlaypanel';
import { setHidden, setPinned, shownKeys, stepColumn, type ColumnLayout } from './columnLayout';
import './gridPrefs.css';

export interface ColumnChooserProps {
  layout: ColumnLayout;
  label(key: string): string;
  onChange(change: (layout: ColumnLayout) => ColumnLayout): void;
  onReset(): void;
  /** The user has a layout of their own: Reset layout has something to do. */
  customLayout: boolean;
}

export function ColumnChooser({ layout, label, onChange, onReset, customLayout }: ColumnChooserProps) {
  const { t } = useTranslation();
  const panel = useRef<OverlayPanel>(null);
  const content = useRef<HTMLDivElement>(null);
  const id = useId();
  const shown = shownKeys(layout).length;
  const last = layout.order.length - 1;
  return (
    <>
      <Button
        type="button"
        size="small"
        text
        icon="pi pi-objects-column"
        label={t('grid.columns.button')}
        title={t('grid.columns.button')}
        className="grid-prefs-button"
        aria-haspopup="dialog"
        data-testid="grid-columns"
        onClick={(event) => panel.current?.toggle(event)}
      />
      {/* Opened, it takes the focus: the keyboard goes on in the list, not behind it in the toolbar. */}
      <OverlayPanel ref={panel} className="grid-prefs-panel" aria-label={t('grid.columns.title')} onShow={() => content.current?.querySelector<HTMLElement>('input:not(:disabled), button:not(:disabled)')?.focus()}>
        <div className="grid-columns" data-testid="grid-columns-panel" ref={content}>
          <div className="grid-prefs-panel__title">{t('grid.columns.title')}</div>
          <p className="grid-prefs-panel__hint">{t('grid.columns.hint')}</p>
          <ul className="grid-columns__list">
            {layout.order.map((key, index) => {
              const name = label(key);
              const hidden = layout.hidden.includes(key);
              const pinned = layout.pinned.includes(key);
              const inputId = `${id}-${key}`;
              return (
                <li key={key} className={`grid-columns__item${pinned ? ' is-pinned' : ''}`} data-testid={`column-choice-${key}`}>
                  <Checkbox
                    inputId={inputId}
                    checked={!hidden}
                    // the last column shown stays: a grid without columns shows nothing
                    disabled={!hidden && shown <= 1}
                    onChange={(e) => onChange((l) => setHidden(l, key, !e.checked))}
                    data-testid={`column-show-${key}`}
                  />
                  <label htmlFor={inputId} className="grid-columns__name" title={name}>
                    {name}
                  </label>
                  <button
                    type="button"
                    className={`grid-icon-button grid-columns__pin${pinned ? ' is-active' : ''}`}
                    aria-pressed={pinned}
                    title={t(pinned ? 'grid.columns.unpin' : 'grid.columns.pin', { column: name })}
                    aria-label={t(pinned ? 'grid.columns.unpin' : 'grid.columns.pin', { column: name })}
                    data-testid={`column-pin-${key}`}
                    onClick={() => onChange((l) => setPinned(l, key, !pinned))}
                  >
                    <i className="pi pi-thumbtack" aria-hidden="true" />
                  </button>
                  <button
                    type="button"
                    className="grid-icon-button"
                    disabled={index === 0}
                    title={t('grid.columns.moveUp', { column: name })}
                    aria-label={t('grid.columns.moveUp', { column: name })}
                    data-testid={`column-up-${key}`}
                    onClick={() => onChange((l) => stepColumn(l, key, -1))}
                  >
                    <i className="pi pi-arrow-up" aria-hidden="true" />
                  </button>
                  <button
                    type="button"
                    className="grid-icon-button"
                    disabled={index === last}
                    title={t('grid.columns.moveDown', { column: name })}
                    aria-label={t('grid.columns.moveDown', { column: name })}
                    data-testid={`column-down-${key}`}
                    onClick={() => onChange((l) => stepColumn(l, key, 1))}
                  >
                    <i className="pi pi-arrow-down" aria-hidden="true" />
                  </button>
                </li>
              );
            })}
          </ul>
          <div className="grid-prefs-panel__actions">
            <Button type="button" size="small" text icon="pi pi-undo" label={t('grid.columns.reset')} disabled={!customLayout} onClick={onReset} data-testid="grid-columns-reset" />
          </div>
        </div>
      </OverlayPanel>
    </>
  );
}
